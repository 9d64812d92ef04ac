package idemqcdk_test

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/constructs-go/constructs/v10"
)

// operateDoc is the operator's guide, which has a section per alarm.
const operateDoc = "../../docs/operate.md"

// stackAlarms are the construct ids of the alarms of the stack cdk.json
// deploys: every AWS::CloudWatch::Alarm resource's construct.
func stackAlarms(tb testing.TB) []string {
	tb.Helper()
	var ids []string
	for _, c := range *newStack(tb, nil).Node().FindAll(constructs.ConstructOrder_PREORDER) {
		if r, ok := c.(awscdk.CfnResource); ok && *r.CfnResourceType() == "AWS::CloudWatch::Alarm" {
			ids = append(ids, *c.Node().Scope().Node().Id())
		}
	}
	return ids
}

// alarmSections are the third-level headings of docs/operate.md's
// "Alarms" section, in order, and the text under each.
func alarmSections(tb testing.TB) ([]string, map[string]string) {
	tb.Helper()
	f, err := os.Open(operateDoc)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var headings []string
	bodies := map[string]string{}
	inAlarms, current := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			inAlarms, current = line == "## Alarms", ""
		case inAlarms && strings.HasPrefix(line, "### "):
			current = strings.TrimPrefix(line, "### ")
			headings = append(headings, current)
		case current != "":
			bodies[current] += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return headings, bodies
}

// docs/operate.md has a section, headed by its id, for every alarm the
// stack defines, saying what it means, how to find the cause and what to
// do; and none for an alarm the stack no longer has.
func TestEveryAlarmIsInTheOperatorsGuide(t *testing.T) {
	alarms := stackAlarms(t)
	if len(alarms) == 0 {
		t.Fatal("the stack has no alarms")
	}
	sections, bodies := alarmSections(t)
	for _, a := range alarms {
		if !slices.Contains(sections, a) {
			t.Errorf("the stack's alarm %s has no section \"### %s\" under \"## Alarms\" in %s", a, a, operateDoc)
			continue
		}
		for _, part := range []string{"**What it means.**", "**Find the cause.**", "**What to do.**"} {
			if !strings.Contains(bodies[a], part) {
				t.Errorf("%s: the section of alarm %s has no %s paragraph", operateDoc, a, part)
			}
		}
	}
	for _, s := range sections {
		if !slices.Contains(alarms, s) {
			t.Errorf("%s has a section for alarm %q, which the stack does not define (it defines %v)", operateDoc, s, alarms)
		}
	}
}
