# Tests of tools/: added with the component.
