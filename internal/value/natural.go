package value

// NaturalLess orders names the way a person reads them: runs of ASCII
// digits compare by their number (file_7 before file_69, which text order
// puts the other way), everything else byte by byte. Numbers that are
// equal in value but written with different leading zeros order by the
// text that follows, then the shorter run (fewer zeros) first, so the
// order is total and agrees with equality of the strings. It allocates
// nothing and reads each string once.
func NaturalLess(a, b string) bool { return NaturalCompare(a, b) < 0 }

// NaturalCompare is NaturalLess as a three-way comparison: -1, 0 or 1.
func NaturalCompare(a, b string) int {
	zeros := 0 // the first difference in leading zeros, decided last
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if !isDigit(ca) || !isDigit(cb) {
			if ca != cb {
				if ca < cb {
					return -1
				}
				return 1
			}
			i++
			j++
			continue
		}
		// Two runs of digits: skip leading zeros, then the longer
		// significant run is the larger number; of equal lengths, the
		// first differing digit decides.
		si, sj := i, j
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		za, zb := i-si, j-sj
		ei, ej := i, j
		for ei < len(a) && isDigit(a[ei]) {
			ei++
		}
		for ej < len(b) && isDigit(b[ej]) {
			ej++
		}
		if la, lb := ei-i, ej-j; la != lb {
			if la < lb {
				return -1
			}
			return 1
		}
		for ; i < ei; i, j = i+1, j+1 {
			if a[i] != b[j] {
				if a[i] < b[j] {
					return -1
				}
				return 1
			}
		}
		if zeros == 0 && za != zb {
			if za < zb {
				zeros = -1
			} else {
				zeros = 1
			}
		}
		j = ej
	}
	switch {
	case len(a)-i < len(b)-j:
		return -1
	case len(a)-i > len(b)-j:
		return 1
	}
	return zeros
}
