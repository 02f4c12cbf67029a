#!/bin/sh
curl -s https://api.example.com/data | jq .
curl -s https://api.example.com/data | python3 -m json.tool
