"""Vulnerable dependencies: lockfiles, OSV, and the value objects they share."""
