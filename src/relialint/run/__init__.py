"""One run of the linter: files, configuration, suppressions, targets, the lint itself."""
