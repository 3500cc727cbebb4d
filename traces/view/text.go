// This file holds the small text helpers of labels and details: indented JSON,
// times in milliseconds, shortened ids and clipped text.

package view

import (
	"bytes"
	"encoding/json"
	"strconv"
)

func pretty(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

func ms(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', -1, 64) + "ms"
}

// short abbreviates an id as the checker's explanations do.
func short(id string) string {
	if r := []rune(id); len(r) > 9 {
		return string(r[:8]) + "…"
	}
	return id
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// keyPrefix cuts an idempotency key to a prefix long enough to tell keys
// apart by eye; the page shows the whole key on hover.
func keyPrefix(key string) string {
	const keep = 12
	if r := []rune(key); len(r) > keep {
		return string(r[:keep]) + "…"
	}
	return key
}
