# SPDX-License-Identifier: MIT
# The test commands' counting, sourced by tools/test and tools/test-arm:
# check NAME CMD... and run_counted NAME CMD... print PASS and FAIL lines
# and count them in $passed and $failed; logs go to $log_dir.
passed=0
failed=0
log_dir=${log_dir:-build/test-logs}
mkdir -p "$log_dir"

# check NAME CMD...: run CMD, log its output, count the result.
check() {
	local name=$1
	shift
	if "$@" >"$log_dir/$name.log" 2>&1; then
		echo "PASS $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (log: $log_dir/$name.log)"
		tail -n 30 "$log_dir/$name.log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

# run_counted NAME CMD...: CMD prints its own PASS and FAIL lines and ends
# with "N passed, N failed" (perhaps after "WORD: "), added to the count.
run_counted() {
	local name=$1 summary
	shift
	"$@" | tee "$log_dir/$name.log"
	summary=$(tail -n 1 "$log_dir/$name.log")
	# "N passed, N failed", after a word and a colon or alone
	if [[ $summary =~ ^([A-Za-z0-9-]+:\ )?([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
		passed=$((passed + BASH_REMATCH[2]))
		failed=$((failed + BASH_REMATCH[3]))
	else
		echo "FAIL $name (it printed no summary; log: $log_dir/$name.log)"
		failed=$((failed + 1))
	fi
}
