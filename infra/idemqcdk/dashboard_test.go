package idemqcdk_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
)

// dayClasses are the handler's counts that add up to its records, in the
// order the dashboard's per-day widget stacks them: executions fresh or
// over a passed lease, replays from the store, copies and the cache,
// in-progress retries, failures and records not started.
var dayClasses = []string{"Fresh", "TookOver", "StoredReplays", "Copies", "CacheHits", "InProgress", "Failed", "Skipped"}

// dashboardMetric is one metric of a dashboard widget as the template
// writes it, with the period and statistic it is drawn with.
type dashboardMetric struct {
	namespace, name, dimension, value string
	stat                              string
	period                            float64
}

// widgetMetrics are the metrics of the widget whose title begins with
// title, its properties, and whether there is one.
func widgetMetrics(tb testing.TB, tpl assertions.Template, title string) ([]dashboardMetric, obj, bool) {
	tb.Helper()
	for _, w := range list(dashboardBody(tb, tpl)["widgets"]) {
		props, _ := w.(obj)["properties"].(obj)
		if t, _ := props["title"].(string); !strings.HasPrefix(t, title) {
			continue
		}
		var out []dashboardMetric
		for _, m := range list(props["metrics"]) {
			m, _ := m.(arr)
			var strs []string
			opts := obj{}
			for _, p := range m {
				switch p := p.(type) {
				case string:
					strs = append(strs, p)
				case obj:
					opts = p
				}
			}
			if len(strs) != 4 {
				tb.Errorf("widget %q: metric %v has not one dimension", title, m)
				continue
			}
			dm := dashboardMetric{namespace: strs[0], name: strs[1], dimension: strs[2], value: strs[3], stat: "Average"}
			for _, o := range []obj{props, opts} { // the metric's own settings win
				if s, ok := o["stat"].(string); ok {
					dm.stat = s
				}
				if p, ok := o["period"].(float64); ok {
					dm.period = p
				}
			}
			out = append(out, dm)
		}
		return out, props, true
	}
	return nil, nil, false
}

// wantDailyWidgets checks the dashboard's per-day widgets: the records
// stacked by class, so that a duplicate answered from the store, a copy,
// a cache hit, an in-progress retry and a take-over each show apart from
// fresh executions; and the provider calls avoided, summed per day.
func wantDailyWidgets(tb testing.TB, tpl assertions.Template, id ids) {
	tb.Helper()
	daily := func(m dashboardMetric) string {
		return fmt.Sprintf("%s %s %s=%s %s/%.0fs", m.namespace, m.name, m.dimension, m.value, m.stat, m.period)
	}
	want := func(name string) string {
		return daily(dashboardMetric{namespace: "idemq", name: name, dimension: "Service", value: "idemq", stat: "Sum", period: 86400})
	}

	classes, props, ok := widgetMetrics(tb, tpl, "Records per day by class")
	if !ok {
		tb.Fatal("the dashboard has no widget of records per day by class")
	}
	var got, wanted []string
	for _, m := range classes {
		got = append(got, daily(m))
	}
	for _, n := range dayClasses {
		wanted = append(wanted, want(n))
	}
	if !slices.Equal(got, wanted) {
		tb.Errorf("records per day by class: metrics\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(wanted, "\n\t"))
	}
	if props["stacked"] != true {
		tb.Errorf("records per day by class: stacked %v, want true", props["stacked"])
	}

	avoided, _, ok := widgetMetrics(tb, tpl, "Provider calls avoided per day")
	if !ok {
		tb.Fatal("the dashboard has no widget of provider calls avoided per day")
	}
	got = nil
	for _, m := range avoided {
		got = append(got, daily(m))
	}
	if !slices.Contains(got, want("ProviderCallsAvoided")) {
		tb.Errorf("provider calls avoided per day: metrics\n\t%s\nwant %s among them", strings.Join(got, "\n\t"), want("ProviderCallsAvoided"))
	}
}
