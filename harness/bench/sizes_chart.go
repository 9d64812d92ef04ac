package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// sideColors are the sides' colours in the size chart.
var sideColors = map[string]color.RGBA{
	SideInline:     {0x9e, 0x9e, 0x9e, 0xff},
	SideGzip:       {0x6b, 0xae, 0xd6, 0xff},
	SideDefault:    {0x1f, 0x77, 0xb4, 0xff},
	SideOffloadAll: {0x2c, 0xa0, 0x2c, 0xff},
	SidePowertools: {0xff, 0x7f, 0x0e, 0xff},
}

// ChartSizes draws $ per million records against the answer's size, both
// axes logarithmic, a line per side over the sizes where it stored and
// replayed every answer, as a PNG, with gonum/plot as Chart does.
func ChartSizes(w io.Writer, r *SizeResults) error {
	if r == nil || len(r.Rows) == 0 {
		return fmt.Errorf("bench: no size measurements to chart")
	}
	model := r.Model()
	p := plot.New()
	p.Title.Text = fmt.Sprintf("$ per million records: first delivery + %.0f %% duplicates + storage for %s (lower is better)",
		100*r.DuplicateRate, days(r.ItemLifetime))
	p.X.Label.Text = "answer size (log scale)"
	p.Y.Label.Text = "US$ per million records (log scale)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	var ticks []plot.Tick
	for _, s := range sizes(r) {
		ticks = append(ticks, plot.Tick{Value: float64(s), Label: sizeLabel(s)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = dollarTicks{}
	p.Add(plotter.NewGrid())
	leg := plot.NewLegend()
	// The default is drawn last, on top of the side it matches past
	// the offload threshold.
	for _, side := range []string{SideInline, SideGzip, SideOffloadAll, SidePowertools, SideDefault} {
		var pts plotter.XYs
		failFrom := 0
		for _, m := range r.Rows {
			switch {
			case m.Side != side:
			case m.Stored():
				pts = append(pts, plotter.XY{X: float64(m.ResultBytes), Y: model.PerMillion(m.PerRecord()).Total()})
			case failFrom == 0:
				failFrom = m.ResultBytes
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		c := sideColors[side]
		line.Color, line.Width = c, vg.Points(2)
		points.Color, points.Shape = c, draw.CircleGlyph{}
		switch side {
		case SideDefault:
			line.Width, points.Radius = vg.Points(3.5), vg.Points(4)
		case SideOffloadAll:
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(4)}
		}
		p.Add(line, points)
		label := sideNames[side]
		if failFrom > 0 {
			label += fmt.Sprintf(": not stored from %s", sizeLabel(failFrom))
		}
		leg.Add(label, line, points)
	}
	const width, plotH, legendH = 10 * vg.Inch, 6 * vg.Inch, 1.3 * vg.Inch
	img := vgimg.New(width, plotH+legendH)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, 0, legendH, 0))
	leg.Left, leg.Top = true, true
	leg.Draw(draw.Crop(dc, 12*vg.Millimeter, 0, 0, -plotH))
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// dollarTicks marks every power of ten, and 2 and 5 times it, in dollars.
type dollarTicks struct{}

func (dollarTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, f := range []float64{1, 2, 5} {
			v := f * math.Pow(10, e)
			if v < lo || v > hi {
				continue
			}
			out = append(out, plot.Tick{Value: v, Label: fmt.Sprintf("$%g", v)})
		}
	}
	return out
}
