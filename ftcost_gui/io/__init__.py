"""Files and locations: resources, estimate files, user config. Never imports Qt."""
