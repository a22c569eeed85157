#!/bin/sh
# test_guides.sh - scripts/check/check_guides.sh passes a page whose blocks print
# what they say, and fails, naming the page, the line and the command, on
# each kind of wrong page; --fix writes the real output.  The pages are
# made here and the command is a stand-in that prints fixed text, so the
# checker is tested apart from what explain and show print.
# shellcheck disable=SC2016 # the pages' $ is the prompt, not an expansion
set -u
. "$(dirname "$0")/lib.sh"
make_tmp guides
checker="$root/scripts/check/check_guides.sh"
vector=vectors/gather_elements/float32/2d/doc_example.json

# The stand-in for dmlref: explain echoes its arguments, show prints two
# lines; "show empty" prints nothing, "show unfinished" no final newline,
# --level 9_9 fails.
cat >"$tmp/fake" <<'EOF'
#!/bin/sh
for a in "$@"; do
    if [ "$a" = 9_9 ]; then
        echo "no such feature level" >&2
        exit 2
    fi
done
case $1 in
explain) printf 'explained: %s|%s|%s|%s\n' "$2" "$3" "$4" "$#" ;;
show)
    case $2 in
    empty) ;;
    unfinished) printf 'no newline' ;;
    *) printf 'shown: %s\nsecond line\n' "$2" ;;
    esac
    ;;
esac
EOF
chmod +x "$tmp/fake"

# page FILE: a correct page of 16 lines; the vector is first named on line
# 3, the show command is on line 6, the explain command on line 14.
page() {
    cat >"$1" <<EOF
# A guide

The first example, from \`$vector\`:

\`\`\`console
\$ dmlref show $vector
shown: $vector
second line
\`\`\`

Where OutputTensor[1, 0] of $vector comes from:

\`\`\`console
\$ dmlref explain $vector --element 'OutputTensor[1, 0]'
explained: $vector|--element|OutputTensor[1, 0]|4
\`\`\`
EOF
}

page "$tmp/right.md"
run_command right 30 sh "$checker" "$tmp/fake" "$tmp/right.md"
expect_exit "a right page" 0 "$tmp/right.out" &&
    expect_output_contains "a right page" "$tmp/right.out" \
        "check_guides: 1 pages, 2 command blocks, 1 vector paths: 3 passed, 0 failed"

# one output line altered
page "$tmp/altered.md"
sed 's/^second line$/second lime/' "$tmp/altered.md" >"$tmp/x" && mv "$tmp/x" "$tmp/altered.md"
run_command altered 30 sh "$checker" "$tmp/fake" "$tmp/altered.md"
expect_exit "an altered output line" 1 "$tmp/altered.out" &&
    expect_output_contains "an altered output line" "$tmp/altered.out" \
        "$tmp/altered.md:6: \`dmlref show $vector\`: the output differs from the block" &&
    expect_output_contains "an altered output line's diff" "$tmp/altered.out" "-second lime" &&
    expect_output_contains "an altered output line's diff" "$tmp/altered.out" "+second line" &&
    expect_output_contains "an altered output line" "$tmp/altered.out" "1 failed"

# --fix writes the command's output into the block, and only there
run_command fix 30 sh "$checker" --fix "$tmp/fake" "$tmp/altered.md"
expect_exit "--fix" 0 "$tmp/fix.out" &&
    expect_output_contains "--fix" "$tmp/fix.out" "$tmp/altered.md:6: \`dmlref show $vector\`: fixed"
if cmp -s "$tmp/altered.md" "$tmp/right.md"; then ok "--fix restores the page"
else bad "--fix: the page is not the right one" "$tmp/altered.md"; fi
run_command refixed 30 sh "$checker" "$tmp/fake" "$tmp/altered.md"
expect_exit "a page after --fix" 0 "$tmp/refixed.out"

# an explain block whose output was left out, and a block that must be empty
page "$tmp/empty.md"
sed '/^explained: /d' "$tmp/empty.md" >"$tmp/x" && mv "$tmp/x" "$tmp/empty.md"
printf '\n```console\n$ dmlref show empty\n```\n' >>"$tmp/empty.md"
run_command empty 30 sh "$checker" "$tmp/fake" "$tmp/empty.md"
expect_exit "a block without its output" 1 "$tmp/empty.out" &&
    expect_output_contains "a block without its output" "$tmp/empty.out" \
        "$tmp/empty.md:14: \`dmlref explain $vector --element 'OutputTensor[1, 0]'\`: the output differs" &&
    expect_output_contains "a block without its output" "$tmp/empty.out" "3 passed, 1 failed"
run_command empty_fix 30 sh "$checker" --fix "$tmp/fake" "$tmp/empty.md"
sed -n '1,16p' "$tmp/empty.md" >"$tmp/empty_head.md"
if expect_exit "--fix of an empty block" 0 "$tmp/empty_fix.out" &&
   cmp -s "$tmp/empty_head.md" "$tmp/right.md"; then ok "--fix fills an empty block"
else bad "--fix of an empty block: the page is not the right one" "$tmp/empty.md"; fi

# a vector that does not exist
page "$tmp/missing.md"
printf '\nSee also vectors/gather_elements/float32/2d/no_such_vector.json.\n' >>"$tmp/missing.md"
run_command missing 30 sh "$checker" "$tmp/fake" "$tmp/missing.md"
expect_exit "a missing vector" 1 "$tmp/missing.out" &&
    expect_output_contains "a missing vector" "$tmp/missing.out" \
        "$tmp/missing.md:18: vectors/gather_elements/float32/2d/no_such_vector.json does not exist"
run_command missing_fix 30 sh "$checker" --fix "$tmp/fake" "$tmp/missing.md"
expect_exit "a missing vector under --fix" 1 "$tmp/missing_fix.out"

# a command that fails: reported with its exit status and message, never written
page "$tmp/failing.md"
sed "s|show $vector\$|show --level 9_9 $vector|" "$tmp/failing.md" >"$tmp/failing2.md"
cp "$tmp/failing2.md" "$tmp/failing.md"
run_command failing 30 sh "$checker" --fix "$tmp/fake" "$tmp/failing.md"
expect_exit "a failing command" 1 "$tmp/failing.out" &&
    expect_output_contains "a failing command" "$tmp/failing.out" \
        "$tmp/failing.md:6: \`dmlref show --level 9_9 $vector\`: exit 2, not 0" &&
    expect_output_contains "a failing command" "$tmp/failing.out" "| no such feature level"
if cmp -s "$tmp/failing.md" "$tmp/failing2.md"; then ok "--fix leaves a failing command's block"
else bad "--fix rewrote a failing command's block" "$tmp/failing.md"; fi

# other commands and other characters are not run
printf '```console\n$ dmlref verify vectors\n```\n' >"$tmp/verify.md"
run_command verify 30 sh "$checker" "$tmp/fake" "$tmp/verify.md"
expect_exit "a dmlref verify block" 1 "$tmp/verify.out" &&
    expect_output_contains "a dmlref verify block" "$tmp/verify.out" \
        "$tmp/verify.md:2: \`dmlref verify vectors\`: only \`dmlref explain\` and \`dmlref show\` blocks are checked"
printf '```console\n$ dmlref show x; touch %s/ran\n```\n' "$tmp" >"$tmp/shell.md"
run_command shell 30 sh "$checker" "$tmp/fake" "$tmp/shell.md"
expect_exit "a command with ;" 1 "$tmp/shell.out" &&
    expect_output_contains "a command with ;" "$tmp/shell.out" "the command may hold only"
if [ -e "$tmp/ran" ]; then fail "a command with ; ran the shell"; else ok "a command with ; is not run"; fi
printf '```console\n$ dmlref show '"'"'x\n```\n' >"$tmp/quote.md"
run_command quote 30 sh "$checker" "$tmp/fake" "$tmp/quote.md"
expect_exit "an unclosed quote" 1 "$tmp/quote.out" &&
    expect_output_contains "an unclosed quote" "$tmp/quote.out" "a quote is not closed"

# blocks a page cannot hold
printf '```console\n$ dmlref show unfinished\nno newline\n```\n' >"$tmp/unfinished.md"
run_command unfinished 30 sh "$checker" "$tmp/fake" "$tmp/unfinished.md"
expect_exit "output without a final newline" 1 "$tmp/unfinished.out" &&
    expect_output_contains "output without a final newline" "$tmp/unfinished.out" \
        "does not end with a newline"
printf 'text\n\n```console\n$ dmlref show x\nshown: x\n' >"$tmp/open.md"
run_command open 30 sh "$checker" "$tmp/fake" "$tmp/open.md"
expect_exit "a block never closed" 1 "$tmp/open.out" &&
    expect_output_contains "a block never closed" "$tmp/open.out" \
        "$tmp/open.md:4: \`dmlref show x\`: the block is never closed"

# several pages: every failure is reported, and a page that cannot be read
run_command several 30 sh "$checker" "$tmp/fake" "$tmp/right.md" "$tmp/verify.md" "$tmp/nowhere.md"
expect_exit "several pages" 1 "$tmp/several.out" &&
    expect_output_contains "several pages" "$tmp/several.out" "$tmp/nowhere.md: cannot be read" &&
    expect_output_contains "several pages" "$tmp/several.out" "3 pages, 3 command blocks, 1 vector paths: 3 passed, 2 failed"

# usage
run_command usage 30 sh "$checker"
expect_exit "no arguments" 3 "$tmp/usage.err"
run_command no_binary 30 sh "$checker" "$tmp/no_such_binary" "$tmp/right.md"
expect_exit "a binary that does not exist" 3 "$tmp/no_binary.err"

finish
