// This file holds the line scanner's skipping of values it does not decode:
// any JSON value, nested objects and arrays included, without recursion.

package traces

import "fmt"

// skipValue scans over any JSON value at pos.
func (s *lineScanner) skipValue() error {
	s.skipSpace()
	c := s.peek()
	switch {
	case c == '"':
		_, err := s.rawString()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		_, err := s.number()
		return err
	case c == '{' || c == '[':
		return s.skipContainer()
	}
	for _, lit := range []string{"true", "false", "null"} {
		if len(s.data)-s.pos >= len(lit) && string(s.data[s.pos:s.pos+len(lit)]) == lit {
			s.pos += len(lit)
			return nil
		}
	}
	return s.syntaxErr(fmt.Sprintf("unexpected %s, expected a value", s.shownByte()))
}

// skipContainer scans over an object or array at pos, without recursion so
// that deep nesting cannot exhaust the stack.
func (s *lineScanner) skipContainer() error {
	var stack []byte // the closing brackets expected
	for {
		c := s.peek()
		switch c {
		case '{', '[':
			s.pos++
			if c == '{' {
				stack = append(stack, '}')
			} else {
				stack = append(stack, ']')
			}
			s.skipSpace()
			if s.peek() == stack[len(stack)-1] {
				s.pos++
				stack = stack[:len(stack)-1]
				break
			}
			if c == '{' {
				if err := s.member(); err != nil {
					return err
				}
			}
			continue
		default:
			if err := s.skipValue(); err != nil {
				return err
			}
		}
		// After a value: ',' then the next element, or a closing bracket.
		for {
			if len(stack) == 0 {
				return nil
			}
			s.skipSpace()
			c := s.peek()
			if c == ',' {
				s.pos++
				s.skipSpace()
				if stack[len(stack)-1] == '}' {
					if err := s.member(); err != nil {
						return err
					}
				}
				break
			}
			if c != stack[len(stack)-1] {
				return s.syntaxErr(fmt.Sprintf("unexpected %s, expected ',' or '%c'", s.shownByte(), stack[len(stack)-1]))
			}
			s.pos++
			stack = stack[:len(stack)-1]
		}
		s.skipSpace()
	}
}

// member scans an object member's name and colon, leaving pos at its value.
func (s *lineScanner) member() error {
	s.skipSpace()
	if s.peek() != '"' {
		return s.syntaxErr(fmt.Sprintf("unexpected %s, expected a field name", s.shownByte()))
	}
	if _, err := s.rawString(); err != nil {
		return err
	}
	s.skipSpace()
	if s.peek() != ':' {
		return s.syntaxErr(fmt.Sprintf("unexpected %s after a field name, expected ':'", s.shownByte()))
	}
	s.pos++
	s.skipSpace()
	return nil
}
