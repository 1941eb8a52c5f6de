# html_in.awk — tools/output/report.html.in as two C strings, the page
# before and after its line @DATA@, for tools/output/html.c.
BEGIN {
    print "/* Generated from tools/output/report.html.in by html_in.awk: edit those. */"
    print "static const char report_html_head[] ="
    part = 0
}
$0 == "@DATA@" {
    print "    \"\";"
    print "static const char report_html_tail[] ="
    part = 1
    next
}
{
    gsub(/\\/, "\\\\")
    gsub(/"/, "\\\"")
    gsub(/\?\?/, "?\\?")
    print "    \"" $0 "\\n\""
}
END {
    if (part != 1) {
        print "#error report.html.in has no @DATA@ line"
        exit 1
    }
    print "    \"\";"
}
