#!/usr/bin/env python3
"""A contract program of 40 integer parameters p0..p39, for designs of many factors (the
bounds of fractions and listed configurations: tests/test_faults_limits.py,
bench/bench_limits.py). It only describes itself: a plan never runs it."""

import json
import sys

if sys.argv[1:] == ["--describe"]:
    parameters = [
        {"name": f"p{i}", "type": "int", "default": 0, "help": "a factor"} for i in range(40)
    ]
    summary = [{"name": "y", "type": "float", "help": "nothing"}]
    print(json.dumps({"name": "many", "version": "1", "summary": summary, "tables": {},
                      "parameters": parameters}))  # fmt: skip
    sys.exit(0)
sys.exit(1)
