# Tests of worker/: added with the component.
