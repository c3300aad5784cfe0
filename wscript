# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build for waf-era ns-3 trees (<= 3.35): put this folder at contrib/presto and run
#   ./waf configure --enable-modules=presto --enable-tests --enable-examples
# The file lists are read from CMakeLists.txt, so there is one list of sources.
# (No __file__ here: waf runs wscripts through exec; paths come from ctx.path.)
import re


def cmake_list(ctx, name):
    """The words of set(<name> ...) in this module's CMakeLists.txt."""
    text = ctx.path.find_node('CMakeLists.txt').read()
    m = re.search(r'set\(%s\s+(.*?)\)' % re.escape(name), text, re.S)
    if not m:
        ctx.fatal('presto: no set(%s ...) in CMakeLists.txt' % name)
    return m.group(1).split()


def configure(conf):
    # Boost: header-only parts (graph, math), ns-3's case A (no required_boost_libs).
    if not conf.require_boost_incs('presto', 'presto (NIC designs on data-center fabrics)'):
        return
    # nlohmann-json: the module's public headers include nlohmann/json.hpp.
    if not conf.check_cxx(header_name='nlohmann/json.hpp', mandatory=False,
                          msg='Checking for nlohmann/json.hpp (presto)'):
        conf.report_optional_feature('presto', 'presto (NIC designs on data-center fabrics)',
                                     False, 'nlohmann/json.hpp not found '
                                     '(Debian: nlohmann-json3-dev)')
        conf.env['MODULES_NOT_BUILT'].append('presto')


def build(bld):
    module = bld.create_ns3_module(
        'presto', ['core', 'network', 'internet', 'point-to-point', 'traffic-control',
                   'applications'])
    module.source = cmake_list(bld, 'presto_model_sources')
    module.use.append('BOOST')
    # only this module's objects see where its data files are
    module.defines = ['PRESTO_DATA_DIR="%s"' % bld.path.find_dir('data').abspath()]

    module_test = bld.create_ns3_module_test_library('presto')
    module_test.source = cmake_list(bld, 'presto_test_suites')

    headers = bld(features='ns3header')
    headers.module = 'presto'
    headers.source = cmake_list(bld, 'presto_headers')

    if bld.env.ENABLE_EXAMPLES:
        bld.recurse('examples')
