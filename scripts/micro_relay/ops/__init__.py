"""One file per Micro Relay op; each registers an OpDef (see ir/registry.py). Files starting with an
underscore hold helpers shared by several ops."""
