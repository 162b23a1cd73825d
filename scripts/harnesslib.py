# SPDX-License-Identifier: GPL-2.0
"""Shared Python helpers of the harness: one owner per format.

read_env()   the env files written by lib.sh's write_env (VAR=<%q value>)
"""
import os
import shlex


def read_env(path):
    """{VAR: value} of an env file written by lib.sh's write_env (bash's
    printf %q quoting, which shlex undoes); {} when the file is missing."""
    env = {}
    if not os.path.exists(path):
        return env
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            k, sep, v = line.partition("=")
            if not sep or not k.isidentifier():
                continue
            words = shlex.split(v) if v else [""]
            env[k] = words[0] if words else ""
    return env
