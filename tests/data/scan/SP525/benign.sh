#!/bin/sh
curl -H "Authorization: Bearer $API_TOKEN" https://api.example.com/v1/items
