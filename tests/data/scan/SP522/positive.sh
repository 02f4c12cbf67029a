#!/bin/sh
echo ZWNobyBoaQ== | base64 -d | sh
