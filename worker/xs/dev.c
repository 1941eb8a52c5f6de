/* dev.c — performance.mark and performance.measure for JavaScript, in
 * ipcstamp-worker-xs-dev ONLY: NEVER FOR A CHAIN NODE (docs/xsnap.md).
 * Two new host functions change every heap snapshot (the callback list is
 * part of it), so this build cannot share snapshots with xsnap-worker.
 *
 * Included at the end of the dev build's copy of xsnap-worker.c (it needs
 * XS's API); the marks themselves go through hooks.c.
 *
 *   performance.mark(name)                        a mark now
 *   performance.measure(name[, startMark[, endMark]])
 *       a span from the latest mark named startMark in this command (or
 *       the command's start) to the latest endMark (or now); an unknown
 *       mark name is a SyntaxError, as in the Web Performance API
 * Both return undefined (no PerformanceEntry); outside a command they do
 * nothing. */

/* Said on stderr at start, and how `ipcstamp xsnap install` refuses it. */
const char ips_xs_dev[] = "ipcstamp-worker-xs-dev: a development build with "
	"performance.mark/measure: NOT FOR CHAIN NODES (its heap snapshots differ "
	"from xsnap-worker's)";

static void ips_xs_performance_mark(xsMachine* the)
{
	if (xsToInteger(xsArgc) < 1)
		xsTypeError("performance.mark: a name is required");
	ips_xs_mark(xsToString(xsArg(0)));
}

static void ips_xs_performance_measure(xsMachine* the)
{
	xsIntegerValue argc = xsToInteger(xsArgc);
	char *name, *start = NULL, *end = NULL;
	int rc;
	if (argc < 1)
		xsTypeError("performance.measure: a name is required");
	/* xsToString's results live in XS's heap: copy before the next call. */
	name = strdup(xsToString(xsArg(0)));
	if (argc > 1 && xsTypeOf(xsArg(1)) != xsUndefinedType)
		start = strdup(xsToString(xsArg(1)));
	if (argc > 2 && xsTypeOf(xsArg(2)) != xsUndefinedType)
		end = strdup(xsToString(xsArg(2)));
	rc = name ? ips_xs_measure(name, start, end) : 0;
	free(name);
	free(start);
	free(end);
	if (rc == 1)
		xsSyntaxError("performance.measure: no mark named as the start in this command");
	if (rc == 2)
		xsSyntaxError("performance.measure: no mark named as the end in this command");
}
