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


# Boost: graph and math are header-only; gnuplot-iostream (the plots) needs these compiled.
REQUIRED_BOOST_LIBS = ['iostreams', 'system', 'filesystem']
CAPTION = 'presto (NIC designs on data-center fabrics)'


def required_boost_libs(conf):
    """Called by the tree's wscript before its Boost check: the libraries to look for."""
    conf.env['REQUIRED_BOOST_LIBS'] += REQUIRED_BOOST_LIBS


def not_built(conf, reason):
    conf.report_optional_feature('presto', CAPTION, False, reason)
    conf.env['MODULES_NOT_BUILT'].append('presto')


def configure(conf):
    # the headers and the libraries, ns-3's case B; reports what is missing itself
    if conf.missing_boost_libs('presto', CAPTION, REQUIRED_BOOST_LIBS):
        return
    # the module's public headers include nlohmann/json.hpp
    if not conf.check_cxx(header_name='nlohmann/json.hpp', mandatory=False,
                          msg='Checking for nlohmann/json.hpp (presto)'):
        not_built(conf, 'nlohmann/json.hpp not found (Debian: nlohmann-json3-dev)')
        return
    if not conf.check_cxx(header_name='gnuplot-iostream.h', mandatory=False,
                          use='BOOST', msg='Checking for gnuplot-iostream.h (presto)'):
        not_built(conf, 'gnuplot-iostream.h not found (Debian: libgnuplot-iostream-dev)')


def build(bld):
    module = bld.create_ns3_module(
        'presto', ['core', 'network', 'internet', 'point-to-point', 'traffic-control',
                   'applications', 'flow-monitor'])
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
