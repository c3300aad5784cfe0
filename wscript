# -*- Mode: python; py-indent-offset: 4; indent-tabs-mode: nil; coding: utf-8; -*-
# Build for waf-era ns-3 trees (<= 3.35): put this folder at contrib/presto.
# The file lists are read from CMakeLists.txt, so there is one list of sources.
import os
import re


def _cmake_list(name):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'CMakeLists.txt')) as f:
        text = f.read()
    m = re.search(r'set\(%s\s+(.*?)\)' % re.escape(name), text, re.S)
    return m.group(1).split() if m else []


def configure(conf):
    conf.env.append_value('DEFINES', 'PRESTO_DATA_DIR="%s"' % os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'data'))


def build(bld):
    module = bld.create_ns3_module(
        'presto', ['core', 'network', 'internet', 'point-to-point', 'traffic-control',
                   'applications'])
    module.source = _cmake_list('presto_model_sources')
    module.env.append_value('LIB', ['boost_iostreams', 'boost_system', 'boost_filesystem'])

    module_test = bld.create_ns3_module_test_library('presto')
    module_test.source = _cmake_list('presto_test_suites')

    headers = bld(features='ns3header')
    headers.module = 'presto'
    headers.source = _cmake_list('presto_headers')

    if bld.env.ENABLE_EXAMPLES:
        for example in _cmake_list('presto_examples'):
            obj = bld.create_ns3_program(example, ['presto'])
            obj.source = 'examples/%s.cc' % example
