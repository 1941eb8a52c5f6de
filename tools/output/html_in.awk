# html_in.awk — the HTML report's page as two C strings for
# tools/output/html.c: tools/output/report.html.in before and after its
# line @DATA@, with its lines @STYLE@ and @SCRIPT@ replaced by
# report.css and report.js (in the directory given as -v dir=...), which
# are kept apart to be edited (and checked) as what they are.
BEGIN {
    print "/* Generated from tools/output/report.html.in, report.css and report.js"
    print " * by html_in.awk: edit those. */"
    print "static const char report_html_head[] ="
    part = 0
}
# One line as a C string literal.  Character by character: gsub's
# replacement text treats backslashes differently in each awk.
function emit(line,    out, i, c, prev) {
    out = ""
    prev = ""
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\\" || c == "\"")
            out = out "\\" c
        else if (c == "?" && prev == "?")
            out = out "\\?"   # no trigraph
        else
            out = out c
        prev = c
    }
    print "    \"" out "\\n\""
}
function include(file,    line, n) {
    n = 0
    while ((getline line < file) > 0) {
        emit(line)
        n++
    }
    close(file)
    if (n == 0) {
        print "#error " file " is missing or empty"
        failed = 1
    }
}
$0 == "@DATA@" {
    print "    \"\";"
    print "static const char report_html_tail[] ="
    part = 1
    next
}
$0 == "@STYLE@" { include(dir "/report.css"); next }
$0 == "@SCRIPT@" { include(dir "/report.js"); next }
{ emit($0) }
END {
    if (part != 1) {
        print "#error report.html.in has no @DATA@ line"
        exit 1
    }
    print "    \"\";"
    if (failed)
        exit 1
}
