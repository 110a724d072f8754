/* The two per-passage loops of WoW's typed parsing path, compiled (see _native.py for the same
 * functions in Python, which give the same results and are used where this module is not built).
 *
 * A full-size train file shows 1.2 million passages at 5.4 million sentences; in Python these loops
 * were half of a first load's CPU time. They use only CPython's public C API, so that setuptools
 * builds them wherever a C compiler is found (pyproject.toml: an optional extension).
 *
 * Both take the values msgspec decoded for a typed dialogue (exact lists, dicts and strings, and each
 * passage's sentences as a msgspec.Raw JSON text); any other type raises TypeError rather than being
 * read wrongly. Strings are required exact (not a subclass) where they are hashed or compared, so that
 * no Python code runs while a list or dict is read through borrowed references and sizes counted
 * before: a caller's object could otherwise change them under the loop. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* Bumped with _native.VERSION whenever a function's arguments or results change: a stale build is
 * then ignored (parser.py falls back to _native and says so) rather than called with the wrong ones. */
#define SPEEDUPS_VERSION 2

static int
append_new(PyObject *list, PyObject *item)
{
    /* PyList_Append that steals ``item`` (NULL propagates an earlier failure). */
    if (item == NULL) {
        return -1;
    }
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

static Py_ssize_t
item_count(PyObject *given, Py_ssize_t turn)
{
    /* Items of a turn's ``retrieved_passages`` (a list of {title: sentences} dicts with str titles;
     * anything else, msgspec's UNSET, is none), or -1 with TypeError. */
    if (!PyList_Check(given)) {
        return 0;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(given); i++) {
        PyObject *entry = PyList_GET_ITEM(given, i), *title, *sentences;
        if (!PyDict_Check(entry)) {
            PyErr_Format(PyExc_TypeError, "turn %zd: retrieved_passages[%zd] is not a dict", turn, i);
            return -1;
        }
        Py_ssize_t at = 0;
        while (PyDict_Next(entry, &at, &title, &sentences)) {
            if (!PyUnicode_CheckExact(title)) {
                PyErr_Format(PyExc_TypeError, "turn %zd: a retrieved passage's title is not a str", turn);
                return -1;
            }
        }
        total += PyDict_GET_SIZE(entry);
    }
    return total;
}

PyDoc_STRVAR(shown_passages_doc,
"shown_passages(retrieved, roles, wizard, seeker, topic, topic_passage, topic_prefix, codes)\n"
"--\n\n"
"The passages shown at each wizard turn of a dialogue, in ParlAI's order; see _native.shown_passages.");

static PyObject *
shown_passages(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "shown_passages takes 8 arguments");
        return NULL;
    }
    PyObject *retrieved = args[0], *roles = args[1], *wizard = args[2], *seeker = args[3];
    PyObject *topic = args[4], *topic_passage = args[5], *topic_prefix = args[6], *codes = args[7];
    if (!PyList_Check(retrieved) || !PyList_Check(roles) || PyList_GET_SIZE(retrieved) != PyList_GET_SIZE(roles)) {
        PyErr_SetString(PyExc_TypeError, "retrieved and roles must be lists of the same length");
        return NULL;
    }
    if (!PyUnicode_CheckExact(wizard) || !PyUnicode_CheckExact(seeker) || !PyUnicode_CheckExact(topic)) {
        PyErr_SetString(PyExc_TypeError, "wizard, seeker or topic is not a str");
        return NULL;
    }
    if (!PyTuple_Check(codes) || PyTuple_GET_SIZE(codes) != 3) {
        PyErr_SetString(PyExc_TypeError, "codes must be a (topic, seeker, wizard) tuple");
        return NULL;
    }
    PyObject *topic_code = PyTuple_GET_ITEM(codes, 0), *seeker_code = PyTuple_GET_ITEM(codes, 1);
    PyObject *wizard_code = PyTuple_GET_ITEM(codes, 2);
    Py_ssize_t turns = PyList_GET_SIZE(roles);

    PyObject *titles = PyList_New(0), *sentence_lists = PyList_New(0), *prefixes = PyList_New(0);
    PyObject *origins = PyList_New(0), *counts = PyList_New(0), *notes = PyList_New(0);
    PyObject *seen = PySet_New(NULL), *result = NULL;
    Py_ssize_t *offset = PyMem_Calloc((size_t)turns + 1, sizeof(Py_ssize_t));
    char *shown = NULL;
    if (!titles || !sentence_lists || !prefixes || !origins || !counts || !notes || !seen || !offset) {
        if (offset == NULL) {
            PyErr_NoMemory();
        }
        goto done;
    }
    /* Each turn's retrieved items numbered across the dialogue: ``shown`` marks those some wizard turn shows. */
    for (Py_ssize_t turn = 0; turn < turns; turn++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(roles, turn))) {
            PyErr_Format(PyExc_TypeError, "turn %zd: the role is not a str", turn);
            goto done;
        }
        Py_ssize_t items = item_count(PyList_GET_ITEM(retrieved, turn), turn);
        if (items < 0) {
            goto done;
        }
        offset[turn + 1] = offset[turn] + items;
    }
    shown = PyMem_Calloc((size_t)offset[turns] + 1, 1);
    if (shown == NULL) {
        PyErr_NoMemory();
        goto done;
    }

    for (Py_ssize_t position = 0; position < turns; position++) {
        int is_wizard = PyObject_RichCompareBool(PyList_GET_ITEM(roles, position), wizard, Py_EQ);
        if (is_wizard < 0) {
            goto done;
        }
        if (!is_wizard) {
            if (append_new(counts, PyLong_FromLong(0)) < 0) {
                goto done;
            }
            continue;
        }
        Py_ssize_t first = PyList_GET_SIZE(titles);
        /* The topic's passage, then those retrieved for the turn before and the one before that; a
         * title kept once. */
        if (PyList_Append(titles, topic) < 0 || PyList_Append(sentence_lists, topic_passage) < 0
            || PyList_Append(prefixes, topic_prefix) < 0 || PyList_Append(origins, topic_code) < 0
            || PySet_Clear(seen) < 0 || PySet_Add(seen, topic) < 0) {
            goto done;
        }
        for (Py_ssize_t back = 1; back <= 2; back++) {
            Py_ssize_t source = position - back;
            if (source < 0) {
                continue;
            }
            PyObject *given = PyList_GET_ITEM(retrieved, source);
            if (!PyList_Check(given)) {
                continue;
            }
            int from_seeker = PyObject_RichCompareBool(PyList_GET_ITEM(roles, source), seeker, Py_EQ);
            if (from_seeker < 0) {
                goto done;
            }
            PyObject *origin = from_seeker ? seeker_code : wizard_code;
            Py_ssize_t k = 0;
            for (Py_ssize_t i = 0; i < PyList_GET_SIZE(given); i++) {
                PyObject *entry = PyList_GET_ITEM(given, i), *title, *sentences;
                Py_ssize_t at = 0;
                while (PyDict_Next(entry, &at, &title, &sentences)) {
                    int known = PySet_Contains(seen, title);
                    if (known < 0) {
                        goto done;
                    }
                    if (!known) {
                        shown[offset[source] + k] = 1;
                        if (PySet_Add(seen, title) < 0 || PyList_Append(titles, title) < 0
                            || PyList_Append(sentence_lists, sentences) < 0
                            || append_new(prefixes, PyUnicode_FromFormat("%zd:%zd:%U#", source, k, title)) < 0
                            || PyList_Append(origins, origin) < 0) {
                            goto done;
                        }
                    }
                    k++;
                }
            }
        }
        if (append_new(counts, PyLong_FromSsize_t(PyList_GET_SIZE(titles) - first)) < 0) {
            goto done;
        }
    }

    /* Each turn's note: None where nothing was retrieved, else (how many items, the {title: sentences}
     * of those no wizard turn shows, or None). */
    for (Py_ssize_t turn = 0; turn < turns; turn++) {
        Py_ssize_t items = offset[turn + 1] - offset[turn];
        if (items == 0) {
            if (PyList_Append(notes, Py_None) < 0) {
                goto done;
            }
            continue;
        }
        PyObject *unshown = NULL;
        PyObject *given = PyList_GET_ITEM(retrieved, turn), *title, *sentences;
        Py_ssize_t k = 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(given); i++) {
            Py_ssize_t at = 0;
            while (PyDict_Next(PyList_GET_ITEM(given, i), &at, &title, &sentences)) {
                if (!shown[offset[turn] + k]) {
                    if (unshown == NULL && (unshown = PyList_New(0)) == NULL) {
                        goto done;
                    }
                    PyObject *single = PyDict_New();
                    if (single == NULL || PyDict_SetItem(single, title, sentences) < 0
                        || append_new(unshown, single) < 0) {
                        Py_XDECREF(single);
                        Py_DECREF(unshown);
                        goto done;
                    }
                }
                k++;
            }
        }
        PyObject *note = Py_BuildValue("(nO)", items, unshown ? unshown : Py_None);
        Py_XDECREF(unshown);
        if (append_new(notes, note) < 0) {
            goto done;
        }
    }
    result = PyTuple_Pack(6, titles, sentence_lists, prefixes, origins, counts, notes);

done:
    Py_XDECREF(titles);
    Py_XDECREF(sentence_lists);
    Py_XDECREF(prefixes);
    Py_XDECREF(origins);
    Py_XDECREF(counts);
    Py_XDECREF(notes);
    Py_XDECREF(seen);
    PyMem_Free(offset);
    PyMem_Free(shown);
    return result;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif

static int
same_sentences(PyObject *remembered, PyObject *sentences)
{
    /* ``remembered == sentences`` for two lists, as list equality gives it. Most shown passages were met
     * before, and their remembered sentences are no longer in the processor's caches: each string's
     * memory is requested first, all at once, so that the reads overlap rather than wait one by one. */
    if (remembered == sentences) {
        return 1;
    }
    Py_ssize_t size = PyList_GET_SIZE(sentences);
    if (PyList_GET_SIZE(remembered) != size) {
        return 0;
    }
    PyObject **ours = PySequence_Fast_ITEMS(remembered), **theirs = PySequence_Fast_ITEMS(sentences);
    for (Py_ssize_t i = 0; i < size; i++) {
        PREFETCH(ours[i]);
        PREFETCH(theirs[i]);
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *a = ours[i], *b = theirs[i];
        if (a == b) {
            continue;
        }
        if (PyUnicode_CheckExact(a) && PyUnicode_CheckExact(b)) {
            Py_ssize_t length = PyUnicode_GET_LENGTH(a);
            int kind = PyUnicode_KIND(a);
            if (length != PyUnicode_GET_LENGTH(b) || kind != PyUnicode_KIND(b)
                || memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)length * (size_t)kind) != 0) {
                return 0;
            }
            continue;
        }
        /* not both strings (only a caller's own lists): Python's comparison, which may change the lists */
        Py_INCREF(remembered);
        Py_INCREF(sentences);
        int equal = PyObject_RichCompareBool(remembered, sentences, Py_EQ);
        Py_DECREF(remembered);
        Py_DECREF(sentences);
        return equal;
    }
    return 1;
}

static int
same_text(PyObject *stored, PyObject *value)
{
    /* 1 if two JSON texts (bytes, msgspec.Raw: anything with the buffer protocol) are equal byte for
     * byte, 0 if not, -1 on error. */
    Py_buffer ours, theirs;
    if (PyObject_GetBuffer(stored, &ours, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    if (PyObject_GetBuffer(value, &theirs, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&ours);
        return -1;
    }
    int same = ours.len == theirs.len && memcmp(ours.buf, theirs.buf, (size_t)ours.len) == 0;
    PyBuffer_Release(&ours);
    PyBuffer_Release(&theirs);
    return same;
}

static int
read_entry(PyObject *known, int64_t *start, PyObject **stored, int64_t *count)
{
    /* The parts of a remembered passage, a (first row, text or sentences, sentence count) tuple. */
    if (!PyTuple_Check(known) || PyTuple_GET_SIZE(known) != 3) {
        PyErr_SetString(PyExc_TypeError, "a remembered passage must be a (row, text or sentences, count) tuple");
        return -1;
    }
    *start = PyLong_AsLongLong(PyTuple_GET_ITEM(known, 0));
    *count = PyLong_AsLongLong(PyTuple_GET_ITEM(known, 2));
    *stored = PyTuple_GET_ITEM(known, 1);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *
sentences_of(PyObject *value, PyObject *decode)
{
    /* A new reference to the sentences of a list, or of a JSON text decoded (a TypeError if the decoder
     * gives no list). */
    PyObject *sentences = PyList_Check(value) ? Py_NewRef(value) : PyObject_CallOneArg(decode, value);
    if (sentences != NULL && !PyList_Check(sentences)) {
        Py_DECREF(sentences);
        PyErr_SetString(PyExc_TypeError, "decode must give a list of sentences");
        return NULL;
    }
    return sentences;
}

PyDoc_STRVAR(passage_rows_doc,
"passage_rows(titles, values, by_title, remembered, written, remembered_count, limit, decode)\n"
"--\n\n"
"The first passages row and sentence count of each shown passage; see _native.passage_rows.");

static PyObject *
passage_rows(PyObject *Py_UNUSED(module), PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 8) {
        PyErr_SetString(PyExc_TypeError, "passage_rows takes 8 arguments");
        return NULL;
    }
    PyObject *titles = args[0], *values = args[1], *by_title = args[2], *remembered = args[3], *decode = args[7];
    if (!PyList_Check(titles) || !PyList_Check(values) || !PyDict_Check(by_title) || !PyDict_Check(remembered)
        || PyList_GET_SIZE(titles) != PyList_GET_SIZE(values)) {
        PyErr_SetString(PyExc_TypeError, "titles and values must be lists of the same length, then two dicts");
        return NULL;
    }
    Py_ssize_t written = PyLong_AsSsize_t(args[4]), count = PyLong_AsSsize_t(args[5]);
    Py_ssize_t limit = PyLong_AsSsize_t(args[6]);
    if (PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t shown = PyList_GET_SIZE(titles), stored_rows = 0;
    /* Read from tuples of the caller's lists: ``decode`` is the caller's code, and runs in the loop. */
    PyObject *title_items = PyList_AsTuple(titles), *value_items = PyList_AsTuple(values);
    PyObject *rows = PyBytes_FromStringAndSize(NULL, shown * (Py_ssize_t)sizeof(int64_t));
    PyObject *sizes = PyBytes_FromStringAndSize(NULL, shown * (Py_ssize_t)sizeof(int64_t));
    PyObject *texts = PyList_New(0), *new_titles = PyList_New(0), *repeats = PyList_New(0);
    PyObject *empty = PyUnicode_FromStringAndSize(NULL, 0), *result = NULL, *sentences = NULL, *key = NULL;
    if (!title_items || !value_items || !rows || !sizes || !texts || !new_titles || !repeats || !empty) {
        goto done;
    }
    int64_t *row_of = (int64_t *)PyBytes_AS_STRING(rows), *size_of = (int64_t *)PyBytes_AS_STRING(sizes);
    for (Py_ssize_t i = 0; i < shown; i++) {
        PyObject *title = PyTuple_GET_ITEM(title_items, i), *value = PyTuple_GET_ITEM(value_items, i), *stored;
        int64_t start, known_count;
        if (!PyUnicode_CheckExact(title)) {
            PyErr_Format(PyExc_TypeError, "shown passage %zd: the title is not a str", i);
            goto done;
        }
        /* The passage of that title met last: its text, byte for byte, or its sentences. */
        PyObject *known = PyDict_GetItemWithError(by_title, title);
        if (known == NULL && PyErr_Occurred()) {
            goto done;
        }
        if (known != NULL) {
            if (read_entry(known, &start, &stored, &known_count) < 0) {
                goto done;
            }
            int same = 0;
            if (PyList_Check(stored) && PyList_Check(value)) {
                Py_INCREF(known);
                same = same_sentences(stored, value);
                Py_DECREF(known);
            }
            else if (!PyList_Check(stored) && !PyList_Check(value)) {
                same = same_text(stored, value);
            }
            if (same < 0) {
                goto done;
            }
            if (same) {
                row_of[i] = start;
                size_of[i] = known_count;
                continue;
            }
        }
        /* Then any of the same title, sentence count and first sentence, compared as sentences. */
        if ((sentences = sentences_of(value, decode)) == NULL) {
            goto done;
        }
        Py_ssize_t size = PyList_GET_SIZE(sentences);
        key = Py_BuildValue("(OnO)", title, size, size ? PyList_GET_ITEM(sentences, 0) : empty);
        if (key == NULL) {
            goto done;
        }
        known = PyDict_GetItemWithError(remembered, key);
        if (known == NULL && PyErr_Occurred()) {
            goto done;
        }
        if (known != NULL) {
            Py_INCREF(known);  /* decoding a stored text runs code that could change the dicts */
            PyObject *theirs = NULL;
            int same = read_entry(known, &start, &stored, &known_count);
            if (same == 0) {
                theirs = sentences_of(stored, decode);
                same = theirs == NULL ? -1 : same_sentences(theirs, sentences);
            }
            if (same == 1 && PyDict_SetItem(by_title, title, known) < 0) {
                same = -1;
            }
            Py_XDECREF(theirs);
            Py_DECREF(known);
            if (same < 0) {
                goto done;
            }
            if (same) {
                row_of[i] = start;
                size_of[i] = known_count;
                Py_CLEAR(key);
                Py_CLEAR(sentences);
                continue;
            }
        }
        if (count + size > limit) {  /* forget them all and start afresh: only some sharing is lost */
            PyDict_Clear(remembered);
            PyDict_Clear(by_title);
            count = 0;
        }
        start = written + stored_rows;
        /* A text is copied: a decoded one is a view of the whole window it was read from. */
        PyObject *kept = PyList_Check(value) ? Py_NewRef(value) : PyBytes_FromObject(value);
        PyObject *entry = kept == NULL ? NULL : Py_BuildValue("(LOn)", (long long)start, kept, size);
        Py_XDECREF(kept);
        if (entry == NULL || PyDict_SetItem(remembered, key, entry) < 0 || PyDict_SetItem(by_title, title, entry) < 0
            || PyList_SetSlice(texts, stored_rows, stored_rows, sentences) < 0 || PyList_Append(new_titles, title) < 0
            || append_new(repeats, PyLong_FromSsize_t(size)) < 0) {
            Py_XDECREF(entry);
            goto done;
        }
        Py_DECREF(entry);
        Py_CLEAR(key);
        Py_CLEAR(sentences);
        count += size;
        stored_rows += size;
        row_of[i] = start;
        size_of[i] = size;
    }
    result = Py_BuildValue("(OOOOOn)", rows, sizes, texts, new_titles, repeats, count);

done:
    Py_XDECREF(title_items);
    Py_XDECREF(value_items);
    Py_XDECREF(key);
    Py_XDECREF(sentences);
    Py_XDECREF(rows);
    Py_XDECREF(sizes);
    Py_XDECREF(texts);
    Py_XDECREF(new_titles);
    Py_XDECREF(repeats);
    Py_XDECREF(empty);
    return result;
}

static PyMethodDef speedups_methods[] = {
    {"shown_passages", (PyCFunction)(void (*)(void))shown_passages, METH_FASTCALL, shown_passages_doc},
    {"passage_rows", (PyCFunction)(void (*)(void))passage_rows, METH_FASTCALL, passage_rows_doc},
    {NULL, NULL, 0, NULL},
};

static int
speedups_exec(PyObject *module)
{
    return PyModule_AddIntConstant(module, "VERSION", SPEEDUPS_VERSION);
}

static PyModuleDef_Slot speedups_slots[] = {
    {Py_mod_exec, speedups_exec},
    {0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "utils.datasets.wow._speedups",
    .m_doc = "WoW's per-passage parsing loops, compiled: the same results as utils.datasets.wow._native.",
    .m_size = 0,
    .m_methods = speedups_methods,
    .m_slots = speedups_slots,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    return PyModuleDef_Init(&speedups_module);
}
