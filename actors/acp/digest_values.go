package acp

// AppendValues appends to out the strings EachString passes as not
// literal, in its order, for a reader that looks only for what varies: no
// call for each of the rest. namesKey reports whether EachString also
// passes the member name "idempotencyKey" (a prompt's or session/new's
// key), which it passes as a literal.
func (d *Digest) AppendValues(out []string) (_ []string, namesKey bool) {
	if d.ID != "" && d.ID[0] == '"' {
		out = append(out, string(d.ID[1:len(d.ID)-1]))
	}
	if d.Method != "" {
		out = append(out, d.Method)
	}
	opt := func(i int) {
		if d.s[i] != "" {
			out = append(out, d.s[i])
		}
	}
	switch d.shape {
	case shapeUpdate:
		out = append(out, d.s[slotSession], d.s[slotUpdate])
		opt(slotMessage)
		if d.content {
			out = d.appendBlocks(out)
		}
		opt(slotState)
		opt(slotStop)
	case shapePromptResult:
		out = append(out, d.s[slotMessage])
	case shapeSessionResult, shapeSessionParams:
		out = append(out, d.s[slotSession])
	case shapeError:
		out = append(out, d.s[slotText])
	case shapePrompt:
		out = append(out, d.s[slotSession])
		out = d.appendBlocks(out)
		if raw := d.s[slotUpdate]; raw != "" {
			namesKey = true
			if raw != "null" {
				out = append(out, raw[1:len(raw)-1])
			}
		}
	case shapeNewSession:
		out = append(out, d.s[slotText])
		out = append(out, d.more...)
		namesKey = d.s[slotUpdate] != ""
		opt(slotUpdate)
	case shapeResume:
		out = append(out, d.s[slotSession], d.s[slotText])
		opt(slotUpdate)
	}
	return out, namesKey
}

// appendBlocks appends the texts of a prompt's or an update's blocks.
func (d *Digest) appendBlocks(out []string) []string {
	if d.more == nil {
		return append(out, d.s[slotText])
	}
	return append(out, d.more...)
}
