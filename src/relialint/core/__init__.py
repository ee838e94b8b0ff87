"""The pipeline's core: facts, versions, triggers and their evaluation over the possible worlds, findings."""
