# `ipcstamp run` and `make demo` (parent issue).
