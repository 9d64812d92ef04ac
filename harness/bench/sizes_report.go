package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idemq/idemq/idem"
)

// SizeSectionHeading opens the size scenarios' section of bench.md;
// ReplaceSizeSection finds it by this line.
const SizeSectionHeading = "#### What a result costs, by size"

// sideNames are the sides' names in the size tables.
var sideNames = map[string]string{
	SideInline:     "idemq inline (no compression, no bucket)",
	SideGzip:       "idemq gzip, no bucket",
	SideDefault:    "idemq default (gzip, S3 over " + thousands(idem.DefaultOffloadAbove) + " bytes)",
	SideOffloadAll: "idemq gzip, S3 for every result",
	SidePowertools: "Powertools TS",
}

// sizeLabel is a size in bytes as KiB or MiB.
func sizeLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// halfTarget is the done-when: from answers of 4 KiB on, idemq's
// default costs at most half of Powertools' per million records.
const halfTargetFrom = 4 << 10

// SizeTarget is the target for the size scenarios, judged: at
// every size from 4 KiB, idemq's default at most half of Powertools' cost
// per million records, or stored and replayed where Powertools cannot
// store the answer at all.
func SizeTarget(r *SizeResults) (met bool, result string) {
	met = true
	var parts []string
	model := r.Model()
	for _, size := range sizes(r) {
		if size < halfTargetFrom {
			continue
		}
		d, _ := r.Find(SideDefault, size)
		p, _ := r.Find(SidePowertools, size)
		switch {
		case !d.Stored():
			met = false
			parts = append(parts, fmt.Sprintf("%s: idemq's default did not store and replay every answer", sizeLabel(size)))
		case !p.Stored():
			parts = append(parts, fmt.Sprintf("%s: Powertools cannot store it, idemq replayed %d of %d", sizeLabel(size), d.Replayed, d.Dup.Records))
		default:
			dc, pc := model.PerMillion(d.PerRecord()), model.PerMillion(p.PerRecord())
			ratio := dc.Total() / pc.Total()
			if ratio <= 0.5 {
				parts = append(parts, fmt.Sprintf("%s: %.3f", sizeLabel(size), ratio))
				break
			}
			met = false
			parts = append(parts, fmt.Sprintf("%s: **%.3f**, over half (writes $%.2f against $%.2f, duplicates $%.2f against $%.2f, storage $%.2f against $%.2f)",
				sizeLabel(size), ratio, dc.Writes, pc.Writes, dc.Duplicates, pc.Duplicates, dc.Storage, pc.Storage))
		}
	}
	return met, "idemq default / Powertools, $ per million records: " + strings.Join(parts, "; ")
}

// sizes lists the answer sizes r measured, in order.
func sizes(r *SizeResults) []int {
	var out []int
	for _, m := range r.Rows {
		if len(out) == 0 || out[len(out)-1] != m.ResultBytes {
			out = append(out, m.ResultBytes)
		}
	}
	return out
}

// ReportSizes writes the size scenarios' section of bench.md.
func ReportSizes(w io.Writer, r *SizeResults) error {
	var b strings.Builder
	sizeSection(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func sizeSection(b *strings.Builder, r *SizeResults) {
	if r == nil || len(r.Rows) == 0 {
		return
	}
	model := r.Model()
	b.WriteString(SizeSectionHeading + "\n\n")
	fmt.Fprintf(b, "Measured %s (in %s). At every answer size each side ran %s in batches of %d, "+
		"each delivered once, then once more (the duplicate), against DynamoDB Local and moto's S3 on loopback. "+
		"Each answer is a JSON document (`{\"id\",\"model\",\"content\"}`) of exactly that size whose content is a slice of prose from "+
		"`%s` (%s bytes), read as a ring: each record's slice starts where the previous one's would end, so answers are distinct "+
		"slices as far as the text goes (%s); answers of 1 MiB and more repeat the text within themselves, which does not help gzip, "+
		"whose window is 32 KiB (compare the gzip ratios). idemq stores the document's bytes; Powertools is handed the same document, "+
		"parsed, and stores the object as a DynamoDB map (its `data` attribute): the same members, the content's JSON escapes "+
		"(a newline is two bytes in JSON) gone, so it keeps a few %% fewer bytes than idemq inline. Both are priced for idemq's "+
		"record lifetime: Powertools' own default expiry is one hour (`expiresAfterSeconds`), after which a duplicate (a redrive "+
		"from the dead-letter queue, a retry after SQS's visibility timeouts) runs the work again.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 MST"), r.Ended.Sub(r.Started).Round(1e9), recordsNote(r), r.BatchSize,
		r.ProseFile, thousands(r.ProseBytes), distinctNote(r))
	fmt.Fprintf(b, "**$ per million records** = first deliveries (claim and completion: DynamoDB write units at $%.3f per million, "+
		"S3 PUTs at $%.2f per million) + %.0f %% of records delivered twice (each duplicate's failed conditional claim, billed by the "+
		"size of the item it hits, and the S3 GET its replay makes, at $%.2f per million) + storage of the item for the record's "+
		"lifetime (%s, `idem.DefaultExpiry`; item + 100 bytes at $%.2f per GB-month) and of the object for the stack's lifecycle rule "+
		"(%s; $%.3f per GB-month), a month being %d hours. DynamoDB on-demand (us-east-1, since %s) and S3 Standard prices.\n\n",
		PricePerMillionWriteUnits, PricePerMillionS3Puts, 100*r.DuplicateRate, PricePerMillionS3Gets,
		days(r.ItemLifetime), PricePerGBMonth, days(r.ObjectLifetime), PricePerS3GBMonth, HoursPerMonth, PricesDate)

	b.WriteString("| answer | gzip ratio |")
	for _, s := range Sides {
		fmt.Fprintf(b, " %s |", sideNames[s])
	}
	b.WriteString(" default / Powertools |\n|---:|---:|")
	b.WriteString(strings.Repeat("---:|", len(Sides)+1) + "\n")
	for _, size := range sizes(r) {
		d, _ := r.Find(SideDefault, size)
		fmt.Fprintf(b, "| %s | %s |", sizeLabel(size), ratio(size, d.GzipBytes))
		for _, s := range Sides {
			m, ok := r.Find(s, size)
			switch {
			case !ok:
				b.WriteString(" – |")
			case !m.Stored():
				fmt.Fprintf(b, " not stored (%s) |", notStored(m))
			default:
				fmt.Fprintf(b, " $%s |", dollars(model.PerMillion(m.PerRecord()).Total()))
			}
		}
		p, _ := r.Find(SidePowertools, size)
		if d.Stored() && p.Stored() {
			fmt.Fprintf(b, " **%.3f** |\n", model.PerMillion(d.PerRecord()).Total()/model.PerMillion(p.PerRecord()).Total())
		} else {
			b.WriteString(" – |\n")
		}
	}
	met, result := SizeTarget(r)
	verdict := "not met"
	if met {
		verdict = "met"
	}
	fmt.Fprintf(b, "\nThe issue's target, idemq's default at most half of Powertools' cost from 4 KiB answers on (and storing what "+
		"Powertools cannot): **%s**. %s.\n\n", verdict, result)

	b.WriteString("What each side sends and keeps, per record (write units of a first delivery: claim + completion; of a duplicate: its failed claim):\n\n")
	b.WriteString("| answer | side | write units: first / duplicate | S3 PUT / GET | item bytes | object bytes | $ per million: writes + duplicates + storage | replayed |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, size := range sizes(r) {
		for _, s := range Sides {
			m, ok := r.Find(s, size)
			if !ok {
				continue
			}
			u := m.PerRecord()
			c := model.PerMillion(u)
			fmt.Fprintf(b, "| %s | %s | %.2f / %.2f | %.2f / %.2f | %s | %s | %s + %s + %s | %d / %d%s |\n",
				sizeLabel(size), sideNames[s], u.WriteUnits, u.DupWriteUnits, u.Puts, u.DupGets,
				thousands(int(u.ItemBytes+0.5)), thousands(int(u.ObjectBytes+0.5)),
				dollars(c.Writes), dollars(c.Duplicates), dollars(c.Storage), m.Replayed, m.Dup.Records, failNote(m))
		}
	}
	b.WriteString("\n")
	breakEven(b, r)
	errorsNote(b, r)
	b.WriteString("![$ per million records against the answer's size](cost-by-size.png)\n\n")
}

// breakEven says where offloading starts to pay, measured (gzip inline
// against gzip with every result in S3) and by the model with the
// measured item sizes.
func breakEven(b *strings.Builder, r *SizeResults) {
	model := r.Model()
	var cheaper []string
	for _, size := range sizes(r) {
		g, ok1 := r.Find(SideGzip, size)
		o, ok2 := r.Find(SideOffloadAll, size)
		if !ok1 || !ok2 || !g.Stored() || !o.Stored() {
			continue
		}
		gc, oc := model.PerMillion(g.PerRecord()).Total(), model.PerMillion(o.PerRecord()).Total()
		word := "inline"
		if oc < gc {
			word = "S3"
		}
		cheaper = append(cheaper, fmt.Sprintf("%s (%s stored): %s cheaper, $%s inline against $%s in S3",
			sizeLabel(size), thousands(g.GzipBytes), word, dollars(gc), dollars(oc)))
	}
	if len(cheaper) == 0 {
		return
	}
	fmt.Fprintf(b, "**Where S3 starts to pay** (idemq gzip kept inline against gzip put in S3, same answers): %s.", strings.Join(cheaper, "; "))
	g, ok1 := r.Find(SideGzip, r.Rows[0].ResultBytes)
	o, ok2 := r.Find(SideOffloadAll, r.Rows[0].ResultBytes)
	measured := ok1 && ok2 && g.GzipBytes > 0 && g.StoredItems > 0 && o.StoredItems > 0
	var item, ptr int
	if measured {
		item = int(g.PerRecord().ItemBytes+0.5) - g.GzipBytes // both means
		ptr = int(o.PerRecord().ItemBytes + 0.5)
		writesOnly := CostModel{}.BreakEven(item, ptr, 1<<20)
		full := model.BreakEven(item, ptr, 1<<20)
		fmt.Fprintf(b, " By the cost model with the measured items (about %d bytes besides the stored result inline, a %d-byte pointer item "+
			"offloaded), a stored result costs less in S3 from %s bytes counting the writes alone (no duplicates, no storage) and from "+
			"%s bytes with %.0f %% duplicates and storage for the record's lifetime; `idem.DefaultOffloadAbove` is %s bytes (stored, after compression).",
			item, ptr, thousands(writesOnly), thousands(full), 100*r.DuplicateRate, thousands(r.OffloadAbove))
	}
	b.WriteString("\n\n")
	if measured {
		breakEvenTable(b, item, ptr)
	}
}

// BreakEvenExpiries and BreakEvenRates are the record expiries and
// duplicate rates breakEvenTable prices.
var (
	BreakEvenExpiries = []time.Duration{24 * time.Hour, 7 * 24 * time.Hour, 23 * 24 * time.Hour, idem.DefaultExpiry}
	BreakEvenRates    = []float64{0, 0.1, 0.5}
)

// breakEvenTable is the model's break-even for the measured item sizes
// (item bytes besides the stored result, the pointer item) at each of
// BreakEvenExpiries and BreakEvenRates, each object kept by the stack's
// lifecycle rule for that expiry: the stored size from which a blob costs
// less, the value to give idem.Config.OffloadAbove (or IDEMQ_OFFLOAD_ABOVE).
func breakEvenTable(b *strings.Builder, item, ptr int) {
	fmt.Fprintf(b, "Where a blob starts to cost less, in stored bytes, by the model with these items (%d bytes besides the result inline, a %d-byte pointer): ", item, ptr)
	b.WriteString("the value to give `idem.Config.OffloadAbove` (`IDEMQ_OFFLOAD_ABOVE`) for a record expiry and a share of records delivered twice.\n\n")
	b.WriteString("| record expiry |")
	for _, rate := range BreakEvenRates {
		fmt.Fprintf(b, " %.0f %% duplicates |", 100*rate)
	}
	b.WriteString("\n|---|")
	for range BreakEvenRates {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, exp := range BreakEvenExpiries {
		days := "days"
		if exp == 24*time.Hour {
			days = "day"
		}
		fmt.Fprintf(b, "| %d %s |", int(exp.Hours()/24), days)
		for _, rate := range BreakEvenRates {
			m := CostModel{DuplicateRate: rate, ItemLifetime: exp, ObjectLifetime: objectLifetime(exp)}
			be := m.BreakEven(item, ptr, 1<<20)
			cell := thousands(be)
			if be == 0 {
				cell = "never"
			}
			fmt.Fprintf(b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
}

// errorsNote quotes the failure of each side that could not store an
// answer, once per side and message.
func errorsNote(b *strings.Builder, r *SizeResults) {
	seen := map[string]bool{}
	for _, m := range r.Rows {
		if m.Stored() || m.Error == "" {
			continue
		}
		first, _, _ := strings.Cut(m.Error, "\n")
		if len(first) > 600 {
			first = first[:600] + "…"
		}
		k := m.Side + first
		if seen[k] {
			continue
		}
		seen[k] = true
		fmt.Fprintf(b, "- %s, answers of %s and up: %d of %d first deliveries failed, %d of %d duplicates; the first error: `%s`\n",
			sideNames[m.Side], sizeLabel(m.ResultBytes), m.First.Failures, m.First.Records, m.Dup.Failures, m.Dup.Records,
			strings.ReplaceAll(first, "`", "'"))
	}
	if len(seen) > 0 {
		b.WriteString("\n")
	}
}

// notStored says briefly why m's side did not store every answer.
func notStored(m SizeMeasurement) string {
	switch {
	case m.Omitted > 0:
		return fmt.Sprintf("completed without it: %d of %d", m.Omitted, m.First.Records)
	case m.First.Failures > 0:
		return fmt.Sprintf("%d of %d failed", m.First.Failures, m.First.Records)
	}
	return fmt.Sprintf("%d of %d replayed", m.Replayed, m.Dup.Records)
}

func failNote(m SizeMeasurement) string {
	var parts []string
	if m.Omitted > 0 {
		parts = append(parts, fmt.Sprintf("%d completed without the result", m.Omitted))
	}
	if m.First.Failures > 0 {
		parts = append(parts, fmt.Sprintf("%d first deliveries failed", m.First.Failures))
	}
	if m.Dup.Failures > 0 {
		parts = append(parts, fmt.Sprintf("%d duplicates failed", m.Dup.Failures))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// recordsNote says how many records ran at each size.
func recordsNote(r *SizeResults) string {
	var fewer []string
	for _, size := range sizes(r) {
		if m, _ := r.Find(SideDefault, size); m.First.Records != r.Records {
			fewer = append(fewer, fmt.Sprintf("%d at %s", m.First.Records, sizeLabel(size)))
		}
	}
	s := fmt.Sprintf("%d records", r.Records)
	if len(fewer) > 0 {
		s += " (" + strings.Join(fewer, ", ") + ": the counts per record are the same, and gzipping hundreds of the largest answers takes minutes)"
	}
	return s
}

func distinctNote(r *SizeResults) string {
	var parts []string
	for _, size := range sizes(r) {
		m, _ := r.Find(SideDefault, size)
		if m.Distinct < m.First.Records {
			parts = append(parts, fmt.Sprintf("%d distinct answers of %s", m.Distinct, sizeLabel(size)))
		}
	}
	if len(parts) == 0 {
		return "every record its own answer"
	}
	return "every record its own answer, except " + strings.Join(parts, ", ") + ", shared round-robin to bound the driver's memory"
}

func ratio(size, gz int) string {
	if gz == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", float64(size)/float64(gz))
}

func dollars(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func days(d interface{ Hours() float64 }) string {
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}

// thousands writes n with comma separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}

// ReplaceSizeSection returns the markdown md with its size section
// (from SizeSectionHeading to the next heading of its level) replaced by
// section, or section appended when md has none.
func ReplaceSizeSection(md, section string) string {
	start := strings.Index(md, SizeSectionHeading+"\n")
	if start < 0 {
		if md != "" && !strings.HasSuffix(md, "\n\n") {
			md = strings.TrimRight(md, "\n") + "\n\n"
		}
		return md + section
	}
	rest := md[start+len(SizeSectionHeading):]
	end := len(md)
	if i := strings.Index(rest, "\n#### "); i >= 0 {
		end = start + len(SizeSectionHeading) + i + 1
	}
	return md[:start] + section + md[end:]
}
