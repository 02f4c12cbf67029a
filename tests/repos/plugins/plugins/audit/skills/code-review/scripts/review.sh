#!/bin/sh
git diff --name-only
