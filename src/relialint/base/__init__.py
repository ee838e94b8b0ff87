"""The plain building blocks every layer uses; nothing here imports the rest of relialint."""
