#!/bin/sh
echo "stack $STACK, database at $DB_HOST" > /etc/motd
