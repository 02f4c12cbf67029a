#!/bin/bash
bash -c "$(curl -fsSL https://get.example.invalid/i.sh)"
