# `ipcstamp report`, `trace`, `latency` (tools issue).
