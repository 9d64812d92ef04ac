package bench

import (
	"fmt"
	"image/color"
	"io"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// series are the chart's bars in each group, in order.
var series = []struct {
	runner string
	label  string // with %d for idemq's default concurrency when atDefault
	// atDefault: the runner runs idemq's default number of records at once.
	atDefault bool
	color     color.RGBA
}{
	{RunnerFloor, "raw-SDK floor, %d at once", true, color.RGBA{0xbd, 0xbd, 0xbd, 0xff}},
	{RunnerFloorFenced, "fenced floor, %d at once", true, color.RGBA{0x8c, 0x8c, 0x8c, 0xff}},
	{RunnerIdemq, "idemq, %d at once (default)", true, color.RGBA{0x1f, 0x77, 0xb4, 0xff}},
	{RunnerFloorWide, "raw-SDK floor, whole batch", false, color.RGBA{0x73, 0x73, 0x73, 0xff}},
	{RunnerFloorFencedWide, "fenced floor, whole batch", false, color.RGBA{0x4d, 0x4d, 0x4d, 0xff}},
	{RunnerIdemqWide, "idemq, whole batch", false, color.RGBA{0x6b, 0xae, 0xd6, 0xff}},
	{RunnerPowertools, "Powertools TS " + PowertoolsVersion + " (whole batch)", false, color.RGBA{0xff, 0x7f, 0x0e, 0xff}},
}

// Chart draws first-delivery throughput (records/s) and client CPU per
// record (µs) for every batch size and model duration, one bar per
// implementation, as a PNG, with gonum/plot.
func Chart(w io.Writer, r *Results) error {
	conds := conditions(r)
	if len(conds) == 0 {
		return fmt.Errorf("bench: no throughput measurements to chart")
	}
	rps, err := barPlot(r, conds, "first delivery: records per second (higher is better)",
		func(m Measurement) float64 { return m.RecordsPerSecond() })
	if err != nil {
		return err
	}
	cpu, err := barPlot(r, conds, "first delivery: client CPU per record, µs (lower is better)",
		func(m Measurement) float64 { return m.CPUPerRecord() })
	if err != nil {
		return err
	}
	const width, plotsH, legendH = 10 * vg.Inch, 8 * vg.Inch, 1.6 * vg.Inch
	img := vgimg.New(width, plotsH+legendH)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 4 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{rps}, {cpu}}, tiles, draw.Crop(dc, 0, 0, legendH, 0))
	rps.Draw(canvases[0][0])
	cpu.Draw(canvases[1][0])
	leg := legend(r)
	leg.Left, leg.Top = true, true
	leg.Draw(draw.Crop(dc, 12*vg.Millimeter, 0, 0, -plotsH))
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// barPlot is one grouped bar chart: a group per condition, a bar per
// series r measured.
func barPlot(r *Results, conds []condition, title string, value func(Measurement) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Min = 0
	p.Y.Tick.Marker = plot.DefaultTicks{}
	names := make([]string, len(conds))
	for i, c := range conds {
		names[i] = fmt.Sprintf("batch %d, %s", c.size, modelLabel(c.model))
	}
	p.NominalX(names...)
	shown := measured(r)
	w := vg.Points(80 / float64(max(len(shown), 1)))
	for k, j := range shown {
		s := series[j]
		values := make(plotter.Values, len(conds))
		for i, c := range conds {
			// A whole-batch runner at a size within the default concurrency
			// was not run: its bar stays empty rather than repeat another's.
			if m, ok := r.find(s.runner, First, c.size, c.model); ok && m.Runner == s.runner {
				values[i] = value(m)
			}
		}
		bars, err := plotter.NewBarChart(values, w)
		if err != nil {
			return nil, err
		}
		bars.Color, bars.LineStyle.Width = s.color, 0
		bars.Offset = w * vg.Length(float64(k)-float64(len(shown)-1)/2)
		p.Add(bars)
	}
	return p, nil
}

// measured lists the indices of the series r measured.
func measured(r *Results) []int {
	var out []int
	for j, s := range series {
		if slices.ContainsFunc(r.Throughput, func(m Measurement) bool { return m.Runner == s.runner }) {
			out = append(out, j)
		}
	}
	return out
}

// legend names the colours of the series r measured.
func legend(r *Results) plot.Legend {
	leg := plot.NewLegend()
	for _, j := range measured(r) {
		s := series[j]
		label := s.label
		if s.atDefault {
			label = fmt.Sprintf(s.label, r.DefaultConcurrency)
		}
		bars, _ := plotter.NewBarChart(plotter.Values{0}, 1) // a swatch of the colour
		bars.Color, bars.LineStyle.Width = s.color, 0
		leg.Add(label, bars)
	}
	return leg
}

// condition is one batch size and model duration.
type condition struct {
	size  int
	model time.Duration
}

func conditions(r *Results) []condition {
	var out []condition
	seen := map[condition]bool{}
	for _, m := range r.Throughput {
		c := condition{m.BatchSize, m.Model}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

func modelLabel(d time.Duration) string {
	return fmt.Sprintf("model %d ms", d.Milliseconds())
}
