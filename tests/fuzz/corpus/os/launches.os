{"t": "exec", "ns": 8123100000000, "pid": 200, "ppid": 100, "argv": ["xsnap-worker", "v1:one"]}
{"t": "frame", "side": "w", "pid": 100, "tid": 100, "pipe": 11, "fd": 4, "len": 9, "tag": "?", "head": "", "enter": 8123400001000, "ret": 8123400002000, "last_enter": 8123400001000, "last_ret": 8123400002000, "calls": 1}
{"t": "frame", "side": "r", "pid": 200, "tid": 200, "pipe": 11, "fd": 3, "len": 9, "tag": "?", "head": "", "enter": 8123400009900, "ret": 8123400010000, "last_enter": 8123400009900, "last_ret": 8123400010000, "calls": 1}
{"t": "frame", "side": "w", "pid": 200, "tid": 200, "pipe": 12, "fd": 4, "len": 9, "tag": ".", "head": "", "enter": 8123400113000, "ret": 8123400114000, "last_enter": 8123400113000, "last_ret": 8123400114000, "calls": 1}
{"t": "frame", "side": "r", "pid": 100, "tid": 100, "pipe": 12, "fd": 3, "len": 9, "tag": ".", "head": "", "enter": 8123400115900, "ret": 8123400116000, "last_enter": 8123400115900, "last_ret": 8123400116000, "calls": 1}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400020000, "wake": 8123400021000, "on": 8123400021000, "why": "sleep", "nr": 0, "sc": "read"}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400030000, "wake": 8123400032000, "on": 8123400032000, "why": "sleep", "nr": 1, "sc": "futex"}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400040000, "wake": 8123400043000, "on": 8123400043000, "why": "sleep", "nr": 2, "sc": "nanosleep"}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400050000, "wake": 8123400054000, "on": 8123400054000, "why": "sleep", "nr": 3, "sc": "poll"}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400060000, "wake": 8123400065000, "on": 8123400065000, "why": "sleep", "nr": 4, "sc": "select"}
{"t": "wait", "pid": 200, "tid": 200, "off": 8123400070000, "wake": 8123400076000, "on": 8123400076000, "why": "sleep", "nr": 5, "sc": "pause"}
{"t": "exec", "ns": 8123200000300, "pid": 300, "ppid": 100, "argv": ["/usr/bin/xsnap-worker", "v2:two", "-r", "@8:v2-3"]}
{"t": "exec", "ns": 8123200000301, "pid": 301, "ppid": 100, "argv": ["/usr/bin/xsnap-worker", "v3:three"]}
{"t": "exec", "ns": 8123200000302, "pid": 302, "ppid": 100, "argv": ["/usr/bin/xsnap-worker", "v4:four"]}
{"t": "exec", "ns": 8123200000400, "pid": 400, "ppid": 100, "argv": ["/bin/sh", "-c", "true"]}
{"t": "exit", "ns": 8123500000200, "pid": 200, "code": 9}
{"t": "exit", "ns": 8123500000300, "pid": 300, "code": 256}
{"t": "exit", "ns": 8123500000301, "pid": 301, "code": 0}
{"t": "exit", "ns": 8123500000400, "pid": 400, "code": 0}
{"t": "end", "ns": 8124000000000, "events": 20, "lost": 0, "status": 0}
