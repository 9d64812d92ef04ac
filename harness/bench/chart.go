package bench

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
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

const (
	chartW, panelH = 1000, 300
	marginL        = 70
	marginR        = 20
	panelTop       = 40 // title space above each panel's plot
	panelBottom    = 44 // group labels below it
	legendH        = 75
)

// Chart draws first-delivery throughput (records/s) and client CPU per
// record (µs) for every batch size and model duration, one bar per
// implementation, as a PNG.
func Chart(w io.Writer, r *Results) error {
	conds := conditions(r)
	if len(conds) == 0 {
		return fmt.Errorf("bench: no throughput measurements to chart")
	}
	img := image.NewRGBA(image.Rect(0, 0, chartW, 2*panelH+legendH))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	panel(img, 0, "first delivery: records per second (higher is better)", conds, r,
		func(m Measurement) float64 { return m.RecordsPerSecond() })
	panel(img, panelH, "first delivery: client CPU per record, microseconds (lower is better)", conds, r,
		func(m Measurement) float64 { return m.CPUPerRecord() })
	legend(img, 2*panelH+10, r)
	return png.Encode(w, img)
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

// panel draws one grouped bar chart with its top at y0.
func panel(img *image.RGBA, y0 int, title string, conds []condition, r *Results, value func(Measurement) float64) {
	text(img, marginL, y0+20, title, color.Black)
	plotTop, plotBottom := y0+panelTop, y0+panelH-panelBottom
	top := 0.0
	for _, c := range conds {
		for _, s := range series {
			if m, ok := r.find(s.runner, First, c.size, c.model); ok {
				top = math.Max(top, value(m))
			}
		}
	}
	step := niceStep(top / 5)
	top = math.Ceil(top/step) * step
	if top == 0 {
		top, step = 1, 1
	}
	grey := color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	for v := 0.0; v <= top+step/2; v += step {
		y := plotBottom - int(v/top*float64(plotBottom-plotTop))
		fill(img, marginL, y, chartW-marginR, y+1, grey)
		label := fmt.Sprintf("%g", v)
		text(img, marginL-8-7*len(label), y+4, label, color.Black)
	}
	groupW := (chartW - marginL - marginR) / len(conds)
	barW := (groupW - 20) / len(series)
	for i, c := range conds {
		gx := marginL + i*groupW + 10
		var bars []int // indices into series of the runners run here
		for j, s := range series {
			if m, ok := r.find(s.runner, First, c.size, c.model); ok && m.Runner == s.runner {
				bars = append(bars, j)
			}
		}
		x := gx + (len(series)-len(bars))*barW/2
		for k, j := range bars {
			m, _ := r.find(series[j].runner, First, c.size, c.model)
			h := int(value(m) / top * float64(plotBottom-plotTop))
			fill(img, x+k*barW+1, plotBottom-h, x+(k+1)*barW-1, plotBottom, series[j].color)
		}
		for k, label := range []string{fmt.Sprintf("batch %d", c.size), modelLabel(c.model)} {
			text(img, gx+(groupW-20-7*len(label))/2, plotBottom+16+14*k, label, color.Black)
		}
	}
	fill(img, marginL, plotBottom, chartW-marginR, plotBottom+1, color.Black)
}

// legend draws the colours and names of the series r measured in three
// columns from y.
func legend(img *image.RGBA, y int, r *Results) {
	i := 0
	for _, s := range series {
		if !slices.ContainsFunc(r.Throughput, func(m Measurement) bool { return m.Runner == s.runner }) {
			continue
		}
		label := s.label
		if s.atDefault {
			label = fmt.Sprintf(s.label, r.DefaultConcurrency)
		}
		x := marginL + (i%3)*300
		yy := y + (i/3)*20
		fill(img, x, yy, x+14, yy+12, s.color)
		text(img, x+20, yy+11, label, color.Black)
		i++
	}
}

func modelLabel(d time.Duration) string {
	return fmt.Sprintf("model %d ms", d.Milliseconds())
}

// niceStep rounds a raw axis step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

func fill(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	draw.Draw(img, image.Rect(x0, y0, x1, y1), image.NewUniform(c), image.Point{}, draw.Src)
}

// text draws s with its baseline at y.
func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
