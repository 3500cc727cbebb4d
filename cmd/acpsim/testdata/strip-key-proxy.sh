#!/bin/sh
# A known-bad proxy for acpsim check --via: it forwards every frame to the
# Agent in $ACPSIM_AGENT_COMMAND and drops idempotencyKey from each on the way.
sed -u -e 's/,"idempotencyKey":"[^"]*"//' -e 's/"idempotencyKey":"[^"]*",//' | exec $ACPSIM_AGENT_COMMAND
