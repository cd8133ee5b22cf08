"""The HTTP surface: thin endpoints over the gateway."""
