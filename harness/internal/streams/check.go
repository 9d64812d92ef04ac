package streams

import "fmt"

// maxViolations is how many violations a report spells out.
const maxViolations = 10

// check fills rep's counts from the provider's calls: one billed call per
// key, and per partition key the keys' first calls in the order of their
// first records.
func check(rep *Report, p plan, prov *provider) {
	prov.mu.Lock()
	defer prov.mu.Unlock()
	rep.ProviderCalls, rep.Refused, rep.Killed = len(prov.order), prov.refused, prov.killed
	violate := func(format string, args ...any) {
		if len(rep.Violations) < maxViolations {
			rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
		}
	}
	for _, k := range p.keys {
		switch n := prov.calls[k]; {
		case n == 0:
			rep.Missing++
			violate("%s (partition %s) was never called", k, p.partition[k])
		case n > 1:
			rep.Duplicates += n - 1
			violate("%s (partition %s) was called %d times", k, p.partition[k], n)
		}
	}
	first := map[string]int{} // key → index of its first billed call
	for i, k := range prov.order {
		if _, ok := first[k]; !ok {
			first[k] = i
		}
	}
	rep.OrderViolations, rep.OrderChecked = orderViolations(p, first, violate)
}

// orderViolations counts, per partition key, the keys whose first call
// came before the first call of a key whose first record was earlier.
func orderViolations(p plan, first map[string]int, violate func(string, ...any)) (violations, partitions int) {
	latest := map[string]int{} // partition → the latest first call so far, in record order
	latestKey := map[string]string{}
	for _, k := range p.keys {
		i, ok := first[k]
		if !ok {
			continue
		}
		pk := p.partition[k]
		prev, seen := latest[pk]
		if !seen {
			partitions++
		}
		if seen && i < prev {
			violations++
			violate("partition %s: %s (an earlier record) first ran after %s", pk, latestKey[pk], k)
			continue
		}
		latest[pk], latestKey[pk] = i, k
	}
	return violations, partitions
}
