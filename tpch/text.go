package tpch

// Pseudo text for l_comment, following the TPC-H specification's text
// grammar (clause 4.2.2.10): sentences built from weighted word lists, words
// separated by one space, a terminator glued to the last word of a sentence.
// The specification takes each comment as a substring, at a random offset and
// of random length, of a large text pool built from that grammar. We produce
// the same distribution without holding a pool in memory: every order owns a
// fresh grammar text stream, and each of its lines skips a random gap of that
// stream and takes the next 10..43 bytes. Because the stream is stationary,
// comments start mid-word, mid-sentence or on a space just as a random pool
// offset would, while memory stays O(1) whatever the scale factor.

// Words are stored in 16-byte slots of one shared blob: the word, a space,
// zero padding. Emitting a word is then a fixed-size 16-byte copy plus a
// length bump, with no per-word bounds juggling (every word plus its space
// fits a slot; compile checks).
const slotSize = 16

var (
	slotBlob []byte  // len = slots × slotSize
	slotLen  []uint8 // word length + 1 (the space)
)

func addSlot(w string) uint16 {
	if len(w)+1 > slotSize {
		panic("tpch: word too long for a text slot: " + w)
	}
	var slot [slotSize]byte
	copy(slot[:], w)
	slot[len(w)] = ' '
	slotBlob = append(slotBlob, slot[:]...)
	slotLen = append(slotLen, uint8(len(w)+1))
	return uint16(len(slotLen) - 1)
}

// wordList is a weighted list compiled into a lookup table: picking a word
// costs one random draw and one index.
type wordList struct {
	words []string
	table []uint16 // len = total weight; table[k] = slot (or index for shapes)
	base  uint16   // slot of words[0]
}

type weighted struct {
	w string
	n int
}

func compile(ws []weighted) wordList {
	var l wordList
	for i, x := range ws {
		slot := addSlot(x.w)
		if i == 0 {
			l.base = slot
		}
		l.words = append(l.words, x.w)
		for j := 0; j < x.n; j++ {
			l.table = append(l.table, slot)
		}
	}
	return l
}

// pickSlot returns the slot of a weighted random word.
func (l *wordList) pickSlot(r *rng) int {
	return int(l.table[r.intn(uint64(len(l.table)))])
}

// pickIndex returns the index in words of a weighted random word.
func (l *wordList) pickIndex(r *rng) int {
	return l.pickSlot(r) - int(l.base)
}

// Word lists and weights of the specification's text grammar.
var (
	nouns = compile([]weighted{
		{"packages", 40}, {"requests", 40}, {"accounts", 40}, {"deposits", 40},
		{"foxes", 20}, {"ideas", 20}, {"theodolites", 20}, {"pinto beans", 20}, {"instructions", 20},
		{"dependencies", 10}, {"excuses", 10}, {"platelets", 10}, {"asymptotes", 10},
		{"courts", 5}, {"dolphins", 5},
		{"multipliers", 1}, {"sauternes", 1}, {"warthogs", 1}, {"frets", 1}, {"dinos", 1},
		{"attainments", 1}, {"somas", 1}, {"Tiresias", 1}, {"patterns", 1}, {"forges", 1},
		{"braids", 1}, {"frays", 1}, {"warhorses", 1}, {"dugouts", 1}, {"notornis", 1},
		{"epitaphs", 1}, {"pearls", 1}, {"tithes", 1}, {"waters", 1}, {"orbits", 1},
		{"gifts", 1}, {"sheaves", 1}, {"depths", 1}, {"sentiments", 1}, {"decoys", 1},
		{"realms", 1}, {"pains", 1}, {"grouches", 1}, {"escapades", 1}, {"hockey players", 1},
	})
	verbs = compile([]weighted{
		{"sleep", 20}, {"wake", 20}, {"are", 20}, {"cajole", 20}, {"haggle", 20},
		{"nag", 10}, {"use", 10}, {"boost", 10},
		{"affix", 5}, {"detect", 5}, {"integrate", 5},
		{"maintain", 1}, {"nod", 1}, {"was", 1}, {"lose", 1}, {"sublate", 1}, {"solve", 1},
		{"thrash", 1}, {"promise", 1}, {"engage", 1}, {"hinder", 1}, {"print", 1}, {"x-ray", 1},
		{"breach", 1}, {"eat", 1}, {"grow", 1}, {"impress", 1}, {"mold", 1}, {"poach", 1},
		{"serve", 1}, {"run", 1}, {"dazzle", 1}, {"snooze", 1}, {"doze", 1}, {"unwind", 1},
		{"kindle", 1}, {"play", 1}, {"hang", 1}, {"believe", 1}, {"doubt", 1},
	})
	adjectives = compile([]weighted{
		{"special", 20}, {"pending", 20}, {"unusual", 20}, {"express", 20},
		{"furious", 1}, {"sly", 1}, {"careful", 1}, {"blithe", 1}, {"quick", 1}, {"fluffy", 1},
		{"slow", 1}, {"quiet", 1}, {"ruthless", 1}, {"thin", 1}, {"close", 1}, {"dogged", 1},
		{"daring", 1}, {"brave", 1}, {"stealthy", 1}, {"permanent", 1}, {"enticing", 1},
		{"idle", 1}, {"busy", 1},
		{"regular", 50}, {"final", 40}, {"ironic", 40}, {"even", 30}, {"bold", 20}, {"silent", 10},
	})
	adverbs = compile([]weighted{
		{"sometimes", 1}, {"always", 1}, {"never", 1},
		{"furiously", 50}, {"slyly", 50}, {"carefully", 50}, {"blithely", 40}, {"quickly", 30}, {"fluffily", 20},
		{"slowly", 1}, {"quietly", 1}, {"ruthlessly", 1}, {"thinly", 1}, {"closely", 1},
		{"doggedly", 1}, {"daringly", 1}, {"bravely", 1}, {"stealthily", 1}, {"permanently", 1},
		{"enticingly", 1}, {"idly", 1}, {"busily", 1}, {"regularly", 1}, {"finally", 1},
		{"ironically", 1}, {"evenly", 1}, {"boldly", 1}, {"silently", 1},
	})
	prepositions = compile([]weighted{
		{"about", 50}, {"above", 50}, {"according to", 50}, {"across", 50}, {"after", 50},
		{"against", 40}, {"along", 40}, {"alongside of", 30}, {"among", 30}, {"around", 20}, {"at", 10},
		{"atop", 1}, {"before", 1}, {"behind", 1}, {"beneath", 1}, {"beside", 1}, {"besides", 1},
		{"between", 1}, {"beyond", 1}, {"by", 1}, {"despite", 1}, {"during", 1}, {"except", 1},
		{"for", 1}, {"from", 1}, {"in place of", 1}, {"inside", 1}, {"instead of", 1}, {"into", 1},
		{"near", 1}, {"of", 1}, {"on", 1}, {"outside", 1}, {"over", 1}, {"past", 1}, {"since", 1},
		{"through", 1}, {"throughout", 1}, {"to", 1}, {"toward", 1}, {"under", 1}, {"until", 1},
		{"up", 1}, {"upon", 1}, {"without", 1}, {"with", 1}, {"within", 1},
	})
	auxiliaries = compile([]weighted{
		{"do", 1}, {"may", 1}, {"might", 1}, {"shall", 1}, {"will", 1}, {"would", 1},
		{"can", 1}, {"could", 1}, {"should", 1}, {"ought to", 1}, {"must", 1},
		{"will have to", 1}, {"shall have to", 1}, {"could have to", 1}, {"should have to", 1},
		{"must have to", 1}, {"need to", 1}, {"try to", 1},
	})
	theSlot = int(addSlot("the"))

	terminators = compile([]weighted{
		{".", 50}, {";", 1}, {":", 1}, {"?", 1}, {"!", 1}, {"--", 1},
	})

	// Sentence shapes: N=noun phrase, V=verb phrase, P=prepositional phrase.
	sentences = compile([]weighted{
		{"NV", 3}, {"NVP", 3}, {"NVN", 3}, {"NPVN", 1}, {"NPVP", 1},
	})
	// Noun phrases: noun | adjective noun | adjective, adjective noun | adverb adjective noun.
	nounPhrases = compile([]weighted{{"N", 10}, {"JN", 20}, {"J,JN", 10}, {"DJN", 50}})
	// Verb phrases: verb | auxiliary verb | verb adverb | auxiliary verb adverb.
	verbPhrases = compile([]weighted{{"V", 30}, {"XV", 1}, {"VD", 40}, {"XVD", 1}})
)

// maxSentence bounds the buffer one sentence may touch: at most 16 words
// (N P V P T with three-word noun and verb phrases) and a terminator, each one
// slot copy, plus a comma per noun phrase; 20 slots leave a margin.
const maxSentence = 20 * slotSize

// writer appends words to a byte buffer with room for a whole sentence.
type writer struct {
	b []byte // len(b) is the capacity in use; n is the text length
	n int
}

func (w *writer) word(slot int) {
	copy(w.b[w.n:w.n+slotSize], slotBlob[slot*slotSize:slot*slotSize+slotSize])
	w.n += int(slotLen[slot])
}

func (w *writer) pick(l *wordList, r *rng) { w.word(l.pickSlot(r)) }

func (w *writer) nounPhrase(r *rng) {
	switch nounPhrases.pickIndex(r) {
	case 0:
	case 1:
		w.pick(&adjectives, r)
	case 2:
		w.pick(&adjectives, r)
		w.b[w.n-1] = ',' // "adjective, adjective noun"
		w.b[w.n] = ' '
		w.n++
		w.pick(&adjectives, r)
	default:
		w.pick(&adverbs, r)
		w.pick(&adjectives, r)
	}
	w.pick(&nouns, r)
}

func (w *writer) verbPhrase(r *rng) {
	switch verbPhrases.pickIndex(r) {
	case 0:
		w.pick(&verbs, r)
	case 1:
		w.pick(&auxiliaries, r)
		w.pick(&verbs, r)
	case 2:
		w.pick(&verbs, r)
		w.pick(&adverbs, r)
	default:
		w.pick(&auxiliaries, r)
		w.pick(&verbs, r)
		w.pick(&adverbs, r)
	}
}

func (w *writer) prepPhrase(r *rng) {
	w.pick(&prepositions, r)
	w.word(theSlot)
	w.nounPhrase(r)
}

// sentence appends one sentence of the grammar followed by a space. The
// buffer must have maxSentence bytes free.
func (w *writer) sentence(r *rng) {
	w.nounPhrase(r)
	switch sentences.pickIndex(r) {
	case 0: // N V T
		w.verbPhrase(r)
	case 1: // N V P T
		w.verbPhrase(r)
		w.prepPhrase(r)
	case 2: // N V N T
		w.verbPhrase(r)
		w.nounPhrase(r)
	case 3: // N P V N T
		w.prepPhrase(r)
		w.verbPhrase(r)
		w.nounPhrase(r)
	default: // N P V P T
		w.prepPhrase(r)
		w.verbPhrase(r)
		w.prepPhrase(r)
	}
	// Glue the terminator to the last word: overwrite the trailing space.
	w.n--
	w.pick(&terminators, r)
}

// appendSentence appends one sentence to b (for tests and tools).
func appendSentence(b []byte, r *rng) []byte {
	w := writer{b: make([]byte, maxSentence)}
	w.sentence(r)
	return append(b, w.b[:w.n]...)
}

// textStream is one order's grammar text, consumed left to right.
type textStream struct {
	w   writer
	pos int
}

func (t *textStream) reset() {
	t.w.n = 0
	t.pos = 0
}

// Comment geometry: each line skips [0, commentGap) bytes of the stream (the
// first line of an order [0, firstGap), so that its start is spread over
// about two sentences of the fresh stream), then takes [commentMin,
// commentMax] bytes. Later lines need no long skip: the stream is already
// stationary there, the small gap only keeps neighbouring comments from
// reading as one continuous text.
const (
	commentMin = 10
	commentMax = 43
	commentGap = 16
	firstGap   = 96
)

// comment skips gap bytes and returns the next n bytes of the stream. The
// result aliases the stream buffer and is valid until the next call.
func (t *textStream) comment(r *rng, gap, n int) []byte {
	t.pos += gap
	for t.w.n < t.pos+n {
		if len(t.w.b)-t.w.n < maxSentence {
			grown := make([]byte, 2*len(t.w.b)+4*maxSentence)
			copy(grown, t.w.b[:t.w.n])
			t.w.b = grown
		}
		t.w.sentence(r)
	}
	s := t.w.b[t.pos : t.pos+n]
	t.pos += n
	return s
}
