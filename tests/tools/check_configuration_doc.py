#!/usr/bin/env python3
"""docs/configuration.md must document every variable `trnsim-demo --env` says trnsim reads.

Usage: check_configuration_doc.py TRNSIM_DEMO DOC
"""
import subprocess
import sys

listing = subprocess.run([sys.argv[1], "--env"], check=True, capture_output=True,
                         text=True).stdout
names = [line.split()[0] for line in listing.splitlines() if line and not line[0].isspace()]
doc = open(sys.argv[2]).read()
missing = [name for name in names if f"`{name}`" not in doc]
for name in missing:
    print("FAIL not documented:", name)
print(f"{len(names) - len(missing)} passed, {len(missing)} failed")
sys.exit(1 if missing or not names else 0)
