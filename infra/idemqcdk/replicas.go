package idemqcdk

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

// regionSets are the sets of regions a table with multi-Region strong
// consistency (MRSC) may span, as the pinned CDK checks them (TableV2):
// all of its regions, the stack's, the replicas' and the witness's, are in
// one set.
var regionSets = map[string][]string{
	"US": {"us-east-1", "us-east-2", "us-west-2"},
	"EU": {"eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1"},
	"AP": {"ap-northeast-1", "ap-northeast-2", "ap-northeast-3"},
}

// resolveTable checks the record table's kind in p: replicas only with
// multi-Region strong consistency, so in three regions (the stack's and
// two replicas, or the stack's, one replica and a witness), and never with
// KeepV020. A claim is one conditional write; only an MRSC table evaluates
// it against the latest write in every region. An eventually consistent
// replica (MREC) evaluates it against its own copy and resolves
// concurrent writes last-writer-wins, so two regions could both claim one
// key and both run the work: no prop asks for one.
func (s *settings) resolveTable(p *WorkerProps, label func(field string) string) error {
	s.keepV020 = p.KeepV020
	s.replicas, s.witness = slices.Clone(p.Replicas), p.WitnessRegion
	bad := func(field, format string, args ...any) error {
		return &SettingError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	mrsc := "a claim is one conditional write, which only a multi-Region strongly consistent table (MRSC) evaluates against every region's latest write, " +
		"and MRSC takes three regions: the stack's and 2 replicas, or the stack's, 1 replica and a witness"
	all := append(slices.Clone(s.replicas), s.witness)
	for i, r := range all {
		switch {
		case r == "" && i < len(s.replicas):
			return bad("Replicas", "%s holds an empty region; give regions such as \"us-east-2\"", label("Replicas"))
		case isToken(r):
			return bad("Replicas", "%s or %s holds a token (a value known only at deployment); the regions of an MRSC table must be known at synth: give plain region names",
				label("Replicas"), label("WitnessRegion"))
		case r != "" && slices.Index(all, r) != i:
			return bad("Replicas", "%s and %s name %s twice; each region holds one replica or the witness", label("Replicas"), label("WitnessRegion"), r)
		}
	}
	switch n := len(s.replicas); {
	case n == 0 && s.witness != "":
		return bad("WitnessRegion", "%s %s is set without %s: a witness serves an MRSC table's replicas; give one replica with it, or unset it",
			label("WitnessRegion"), s.witness, label("Replicas"))
	case n == 0:
	case s.keepV020:
		return bad("Replicas", "%s is set with %s: v0.2.0's table holds records, and DynamoDB makes a table multi-Region strongly consistent only while it is empty "+
			"(a global table's consistency is chosen once, when it gains its first replica); keep it in one region (unset %s), or give replicas to a new table in a new stack once the old queue has drained",
			label("Replicas"), label("KeepV020"), label("Replicas"))
	case s.witness == "" && n != 2:
		return bad("Replicas", "%s names %d region(s): %s; give 2 replicas, or 1 and %s", label("Replicas"), n, mrsc, label("WitnessRegion"))
	case s.witness != "" && n != 1:
		return bad("Replicas", "%s names %d regions with %s %s: %s; give 1 replica with a witness, or 2 without", label("Replicas"), n, label("WitnessRegion"), s.witness, mrsc)
	}
	return nil
}

// checkRegions checks the regions of s's replicas against stack's: the
// stack's region must be known at synth, hold no replica or witness of its
// own, and be in one region set with them (regionSets).
func checkRegions(stack awscdk.Stack, s settings, label func(field string) string) error {
	if len(s.replicas) == 0 {
		return nil
	}
	region := *stack.Region()
	bad := func(format string, args ...any) error {
		return &SettingError{Field: "Replicas", Msg: fmt.Sprintf(format, args...)}
	}
	if isToken(region) {
		return bad("%s is set in the stack %s, whose region is known only at deployment; an MRSC table needs it at synth: set the stack's StackProps.Env.Region",
			label("Replicas"), *stack.Node().Path())
	}
	all := append(slices.Clone(s.replicas), s.witness)
	if slices.Contains(all, region) {
		return bad("%s or %s names the stack's own region %s, which holds the table itself; name the other regions", label("Replicas"), label("WitnessRegion"), region)
	}
	for name, set := range regionSets {
		if !slices.Contains(set, region) {
			continue
		}
		for _, r := range all {
			if r != "" && !slices.Contains(set, r) {
				return bad("%s or %s names %s, outside the %s region set of the stack's region %s (%s), which an MRSC table cannot leave",
					label("Replicas"), label("WitnessRegion"), r, name, region, strings.Join(set, ", "))
			}
		}
		return nil
	}
	var sets []string
	for _, name := range []string{"US", "EU", "AP"} {
		sets = append(sets, name+": "+strings.Join(regionSets[name], ", "))
	}
	return bad("the stack's region %s is in no region set that takes an MRSC table (%s); deploy the stack to one of those regions, or unset %s",
		region, strings.Join(sets, "; "), label("Replicas"))
}
