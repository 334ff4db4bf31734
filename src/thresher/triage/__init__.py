"""Triage of GitHub secret-scanning alerts: state, policy, shards, reports (issue 10)."""
