package photo

import "encoding/json"

// infoWire is Info with the header facts RenderMemory and RenderProbed
// use, for a render run in another process (see worker.ChildRenderer).
type infoWire struct {
	Format                      Format
	Width, Height, Orientation  int
	DisplayWidth, DisplayHeight int
	DisplayP3, DecoderOrients   bool
	Progressive, Converted      bool
	Scans, PNGBytes             int
	Samples                     float64
	FrameW, FrameH              int
	Lossless                    bool
	Size                        int64
	Exif                        []byte `json:",omitempty"` // capture time and place are read from it
}

// MarshalBinary encodes an Info for RenderProbed in another process.
func (i Info) MarshalBinary() ([]byte, error) {
	return json.Marshal(infoWire{
		Format: i.Format, Width: i.Width, Height: i.Height, Orientation: i.Orientation,
		DisplayWidth: i.DisplayWidth, DisplayHeight: i.DisplayHeight,
		DisplayP3: i.DisplayP3, DecoderOrients: i.decoderOrients,
		Progressive: i.m.progressive, Converted: i.m.converted, Scans: i.m.scans, PNGBytes: i.m.pngBytes,
		Samples: i.m.samples, FrameW: i.m.frameW, FrameH: i.m.frameH, Lossless: i.m.lossless,
		Size: i.size, Exif: i.m.exif,
	})
}

// UnmarshalBinary decodes what MarshalBinary made.
func (i *Info) UnmarshalBinary(b []byte) error {
	var w infoWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*i = Info{
		Format: w.Format, Width: w.Width, Height: w.Height, Orientation: w.Orientation,
		DisplayWidth: w.DisplayWidth, DisplayHeight: w.DisplayHeight,
		DisplayP3: w.DisplayP3, decoderOrients: w.DecoderOrients, size: w.Size,
		m: meta{progressive: w.Progressive, converted: w.Converted, scans: w.Scans, pngBytes: w.PNGBytes,
			samples: w.Samples, frameW: w.FrameW, frameH: w.FrameH, lossless: w.Lossless, exif: w.Exif},
	}
	return nil
}
