# Tests of parent/: added with the component.
