# parent/: see issue; rules are added by the component.
