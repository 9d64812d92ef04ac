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
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	for _, side := range Sides {
		var pts plotter.XYs
		for _, m := range r.Rows {
			if m.Side == side && m.Stored() {
				pts = append(pts, plotter.XY{X: float64(m.ResultBytes), Y: model.PerMillion(m.PerRecord()).Total()})
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
		p.Add(line, points)
		p.Legend.Add(sideNames[side], line, points)
	}
	img := vgimg.New(10*vg.Inch, 6*vg.Inch)
	p.Draw(draw.New(img))
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
