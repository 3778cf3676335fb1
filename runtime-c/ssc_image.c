/* ssc_image.c — image files for a program's external ports: PGM, PFM and
 * raw frames read before the run and written after it (ssc_image.h). */
#define _GNU_SOURCE
#include "ssc_image.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------ */
/* Messages                                                            */
/* ------------------------------------------------------------------ */

static int say(char *err, size_t n, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
    return code;
}

static const char *type_name(ssc_type t)
{
    static const char *names[] = { "char", "uchar", "short", "ushort", "int", "uint", "float", "double" };
    return (unsigned)t < sizeof names / sizeof *names ? names[t] : "?";
}

/* ------------------------------------------------------------------ */
/* Values into a port's type                                           */
/* ------------------------------------------------------------------ */

/* The largest whole value every element of t holds exactly (from 0 up). */
static double type_max(ssc_type t)
{
    switch (t) {
    case SSC_CHAR: return 127;
    case SSC_UCHAR: return 255;
    case SSC_SHORT: return 32767;
    case SSC_USHORT: return 65535;
    case SSC_INT: return 2147483647.0;
    default: return 4294967295.0;   /* uint; float and double hold 0..65535 exactly too */
    }
}

static void put(ssc_type t, void *out, size_t i, double v)
{
    switch (t) {
    case SSC_CHAR: ((signed char *)out)[i] = (signed char)v; break;
    case SSC_UCHAR: ((unsigned char *)out)[i] = (unsigned char)v; break;
    case SSC_SHORT: ((short *)out)[i] = (short)v; break;
    case SSC_USHORT: ((unsigned short *)out)[i] = (unsigned short)v; break;
    case SSC_INT: ((int *)out)[i] = (int)v; break;
    case SSC_UINT: ((unsigned *)out)[i] = (unsigned)v; break;
    case SSC_FLOAT: ((float *)out)[i] = (float)v; break;
    case SSC_DOUBLE: ((double *)out)[i] = v; break;
    }
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* The whole file into *buf: 0, or 1 (unreadable) or 3 (out of memory)
 * with a message. */
static int slurp(const char *path, unsigned char **buf, size_t *len, char *err, size_t n)
{
    /* Refused before it is opened: opening a FIFO blocks until a writer
     * comes, and a device reads forever. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return say(err, n, 1, "%s: not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return say(err, n, 1, "%s: cannot read: %s", path, strerror(errno));
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return say(err, n, 1, "%s: not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    if (!(*buf = malloc(size ? size : 1))) {
        fclose(f);
        return say(err, n, 3, "%s: out of memory reading %zu bytes", path, size);
    }
    size_t got = fread(*buf, 1, size, f);
    int failed = ferror(f);
    fclose(f);
    if (failed || got != size) {
        free(*buf);
        return say(err, n, 1, "%s: cannot read: %s", path,
                   failed ? strerror(errno) : "the file changed while it was read");
    }
    *len = size;
    return 0;
}

/* A header of whole numbers separated by white space and `#` comments
 * (PGM), or by white space only (PFM). */
typedef struct {
    const unsigned char *p, *end;
    int comments;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end) {
        if (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r' || *c->p == '\v' || *c->p == '\f')
            c->p++;
        else if (c->comments && *c->p == '#')
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
                c->p++;
        else
            break;
    }
}

/* A whole number 1..limit, or -1 (nothing there) or -2 (out of range). */
static long long header_number(cursor *c, long long limit)
{
    skip_space(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9')
        return -1;
    long long v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        v = v * 10 + (*c->p++ - '0');
        if (v > limit)
            return -2;
    }
    return v < 1 ? -2 : v;
}

/* The header's fields, named for messages. */
static int read_header(cursor *c, const char *path, const char *format, const char **names,
                       long long *values, const long long *limits, int count, char *err, size_t n)
{
    for (int i = 0; i < count; i++) {
        values[i] = header_number(c, limits[i]);
        if (values[i] == -1)
            return say(err, n, 1, "%s: %s header: the %s is missing%s", path, format, names[i],
                       c->p >= c->end ? " (the file ends in the header)" : "");
        if (values[i] == -2)
            return say(err, n, 1, "%s: %s header: the %s is outside 1..%lld", path, format, names[i], limits[i]);
    }
    /* exactly one white-space character ends the header */
    if (c->p >= c->end)
        return say(err, n, 1, "%s: is truncated: the file ends after its %s header", path, format);
    if (!(*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        return say(err, n, 1, "%s: %s header: expected white space after the %s, found '%c'", path, format,
                   names[count - 1], *c->p);
    c->p++;
    return 0;
}

static int check_shape(const char *path, const char *what, long long w, long long h,
                       const ssc_image_port *p, char *err, size_t n)
{
    if (w != p->width || h != p->height)
        return say(err, n, 1, "%s: is %lldx%lld pixels (%s); input `%s` takes %lldx%lld", path, w, h,
                   what, p->name, (long long)p->width, (long long)p->height);
    return 0;
}

/* The number of data bytes must be exactly `need`. */
static int check_length(const char *path, const char *what, size_t have, size_t need, char *err, size_t n)
{
    if (have < need)
        return say(err, n, 1, "%s: is truncated: the %s needs %zu bytes of pixels, the file has %zu", path,
                   what, need, have);
    if (have > need)
        return say(err, n, 1, "%s: has %zu bytes after the %s (one image a file)", path, have - need, what);
    return 0;
}

static int read_pgm(const char *path, const unsigned char *buf, size_t len, const ssc_image_port *p,
                    void *out, char *err, size_t n)
{
    cursor c = { buf + 2, buf + len, 1 };
    static const char *names[] = { "width", "height", "maxval" };
    static const long long limits[] = { 1ll << 30, 1ll << 30, 65535 };
    long long v[3];
    int s = read_header(&c, path, "PGM", names, v, limits, 3, err, n);
    if (s)
        return s;
    long long maxval = v[2];
    int bytes = maxval > 255 ? 2 : 1;
    char what[64];
    snprintf(what, sizeof what, "%d-bit PGM", 8 * bytes);
    if ((s = check_shape(path, what, v[0], v[1], p, err, n)))
        return s;
    if (p->type != SSC_FLOAT && p->type != SSC_DOUBLE && (double)maxval > type_max(p->type))
        return say(err, n, 1, "%s: %s with maxval %lld; input `%s` is %s and holds at most %.0f: "
                   "give the port a wider type (ushort, int, float) or scale the file", path, what, maxval,
                   p->name, type_name(p->type), type_max(p->type));
    size_t count = (size_t)p->width * (size_t)p->height;
    if ((s = check_length(path, what, (size_t)(c.end - c.p), count * (size_t)bytes, err, n)))
        return s;
    for (size_t i = 0; i < count; i++) {
        unsigned value = bytes == 2 ? (unsigned)c.p[2 * i] << 8 | c.p[2 * i + 1] : c.p[i];
        if (value > maxval)
            return say(err, n, 1, "%s: pixel (%zu, %zu) is %u, above the header's maxval %lld", path,
                       i % (size_t)p->width, i / (size_t)p->width, value, maxval);
        put(p->type, out, i, value);
    }
    return 0;
}

static int read_pfm(const char *path, const unsigned char *buf, size_t len, const ssc_image_port *p,
                    void *out, char *err, size_t n)
{
    cursor c = { buf + 2, buf + len, 0 };
    static const char *names[] = { "width", "height" };
    static const long long limits[] = { 1ll << 30, 1ll << 30 };
    long long v[2];
    /* the scale line ends the header: parse the two numbers, then it */
    for (int i = 0; i < 2; i++) {
        v[i] = header_number(&c, limits[i]);
        if (v[i] < 0)
            return say(err, n, 1, "%s: PFM header: the %s is %s", path, names[i],
                       v[i] == -1 ? "missing" : "outside 1..2^30");
    }
    skip_space(&c);
    char scale_text[64];
    size_t k = 0;
    while (c.p < c.end && k + 1 < sizeof scale_text && *c.p != '\n' && *c.p != '\r' && *c.p != ' ')
        scale_text[k++] = (char)*c.p++;
    scale_text[k] = 0;
    char *end;
    double scale = strtod(scale_text, &end);
    if (!k || *end || !(scale == scale) || scale == 0)
        return say(err, n, 1, "%s: PFM header: the scale '%s' is not a non-zero number (negative: little "
                   "endian)", path, scale_text);
    if (c.p >= c.end || !(*c.p == '\n' || *c.p == ' ' || *c.p == '\r'))
        return say(err, n, 1, "%s: is truncated: the file ends after its PFM header", path);
    c.p++;
    int s;
    if ((s = check_shape(path, "PFM", v[0], v[1], p, err, n)))
        return s;
    if (p->type != SSC_FLOAT && p->type != SSC_DOUBLE)
        return say(err, n, 1, "%s: is a float image (PFM); input `%s` is %s: give the port type float, "
                   "or give an integer PGM", path, p->name, type_name(p->type));
    size_t count = (size_t)p->width * (size_t)p->height;
    if ((s = check_length(path, "PFM", (size_t)(c.end - c.p), count * 4, err, n)))
        return s;
    int little = scale < 0;
    for (size_t r = 0; r < (size_t)p->height; r++) {
        const unsigned char *row = c.p + r * (size_t)p->width * 4;
        size_t y = (size_t)p->height - 1 - r;   /* PFM: bottom row first */
        for (size_t x = 0; x < (size_t)p->width; x++) {
            const unsigned char *b = row + 4 * x;
            uint32_t bits = little ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24
                                   : (uint32_t)b[3] | (uint32_t)b[2] << 8 | (uint32_t)b[1] << 16 | (uint32_t)b[0] << 24;
            float f;
            memcpy(&f, &bits, 4);
            put(p->type, out, y * (size_t)p->width + x, f);
        }
    }
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcasecmp(s + a - b, suffix);
}

int ssc_image_read(const char *path, const ssc_image_port *p, void *out, char *err, size_t n)
{
    size_t len = 0;
    unsigned char *buf = NULL;
    int s = slurp(path, &buf, &len, err, n);
    if (s)
        return s;
    if (has_suffix(path, ".raw") || has_suffix(path, ".bin")) {
        size_t need = (size_t)p->width * (size_t)p->height * ssc_type_size(p->type);
        if (len != need)
            s = say(err, n, 1, "%s: a raw frame of %zu bytes; input `%s` takes %lldx%lld %s = %zu bytes",
                    path, len, p->name, (long long)p->width, (long long)p->height, type_name(p->type), need);
        else
            memcpy(out, buf, need), s = 0;
    } else if (len == 0) {
        s = say(err, n, 1, "%s: is empty", path);
    } else if (len >= 2 && buf[0] == 'P' && buf[1] == '5') {
        s = read_pgm(path, buf, len, p, out, err, n);
    } else if (len >= 2 && buf[0] == 'P' && buf[1] == 'f') {
        s = read_pfm(path, buf, len, p, out, err, n);
    } else if (len >= 2 && buf[0] == 'P' && buf[1] == '2') {
        s = say(err, n, 1, "%s: is a plain (ASCII) PGM (P2): ssc reads binary PGM (P5); convert it, "
                "e.g. with `pnmtopnm` or `convert`", path);
    } else if (len >= 2 && buf[0] == 'P' && (buf[1] == '3' || buf[1] == '6' || buf[1] == 'F')) {
        s = say(err, n, 1, "%s: is a colour image (%c%c): the ports take one channel; give a greyscale "
                "PGM (P5) or PFM (Pf)", path, buf[0], buf[1]);
    } else {
        s = say(err, n, 1, "%s: is not a binary PGM (P5) or PFM (Pf) file, and not named .raw or .bin",
                path);
    }
    free(buf);
    return s;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

const char *ssc_image_extension(ssc_type t)
{
    return t == SSC_UCHAR || t == SSC_USHORT ? "pgm" : t == SSC_FLOAT ? "pfm" : "raw";
}

int ssc_image_write(const char *path, const ssc_image_port *p, const void *data, char *err, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return say(err, n, 3, "%s: cannot write: %s", path, strerror(errno));
    size_t w = (size_t)p->width, h = (size_t)p->height, count = w * h;
    int ok = 1;
    if (p->type == SSC_UCHAR) {
        ok = fprintf(f, "P5\n%zu %zu\n255\n", w, h) > 0 && fwrite(data, 1, count, f) == count;
    } else if (p->type == SSC_USHORT) {
        ok = fprintf(f, "P5\n%zu %zu\n65535\n", w, h) > 0;
        unsigned char *row = malloc(2 * w);
        const unsigned short *v = data;
        for (size_t y = 0; ok && row && y < h; y++) {
            for (size_t x = 0; x < w; x++)
                row[2 * x] = (unsigned char)(v[y * w + x] >> 8), row[2 * x + 1] = (unsigned char)v[y * w + x];
            ok = fwrite(row, 2, w, f) == w;
        }
        ok = ok && row;
        free(row);
    } else if (p->type == SSC_FLOAT) {
        ok = fprintf(f, "Pf\n%zu %zu\n-1.0\n", w, h) > 0;
        unsigned char *row = malloc(4 * w);
        const float *v = data;
        for (size_t r = 0; ok && row && r < h; r++) {
            const float *src = v + (h - 1 - r) * w;   /* bottom row first */
            for (size_t x = 0; x < w; x++) {
                uint32_t bits;
                memcpy(&bits, src + x, 4);
                for (int b = 0; b < 4; b++)
                    row[4 * x + (size_t)b] = (unsigned char)(bits >> (8 * b));
            }
            ok = fwrite(row, 4, w, f) == w;
        }
        ok = ok && row;
        free(row);
    } else {
        size_t bytes = count * ssc_type_size(p->type);
        ok = fwrite(data, 1, bytes, f) == bytes;
    }
    int e = errno;
    if (fclose(f) != 0)
        ok = 0, e = errno;
    if (!ok)
        return say(err, n, 3, "%s: cannot write: %s", path, e ? strerror(e) : "short write");
    return 0;
}

/* ------------------------------------------------------------------ */
/* A program's --input and --output                                    */
/* ------------------------------------------------------------------ */

static struct {
    const ssc_image_port *ports;
    int n_ports;
    const char *dir;                /* --output, or NULL */
    uint64_t frames;                /* frames of every input */
    ssc_external *ext;              /* inputs given, then every output */
    int n_ext;
    ssc_frame *slots;               /* frames * n_ext */
    const char *program;
} io;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_paths(char **v, uint64_t count)
{
    for (uint64_t i = 0; v && i < count; i++)
        free(v[i]);
    free(v);
}

/* The frames of one --input PATH into *out: the file, or a folder's files
 * (names not starting with '.') in name order. 0, or 1 (unreadable, no
 * frames) or 3 (out of memory: never a shorter list) with a message. */
static int frame_paths(const char *path, char ***out, uint64_t *count, int *folder, char *err, size_t n)
{
    struct stat st;
    *out = NULL;
    *count = 0;
    if (stat(path, &st) != 0)
        return say(err, n, 1, "%s: cannot read: %s", path, strerror(errno));
    *folder = S_ISDIR(st.st_mode);
    if (!*folder) {
        char **v = malloc(sizeof *v);
        if (!v || !(v[0] = strdup(path)))
            return free(v), say(err, n, 3, "out of memory");
        *out = v;
        *count = 1;
        return 0;
    }
    DIR *d = opendir(path);
    if (!d)
        return say(err, n, 1, "%s: cannot read the folder: %s", path, strerror(errno));
    char **v = NULL;
    size_t k = 0, cap = 0;
    struct dirent *e;
    int status = 0;
    while (!status && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *full;
        if (asprintf(&full, "%s/%s", path, e->d_name) < 0) {
            status = say(err, n, 3, "out of memory listing %s", path);
            break;
        }
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(full);
            continue;
        }
        if (k == cap) {
            char **grown = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
            if (!grown) {
                free(full);
                status = say(err, n, 3, "out of memory listing %s", path);
                break;
            }
            v = grown;
        }
        v[k++] = full;
    }
    closedir(d);
    if (!status && !k)
        status = say(err, n, 1, "%s: the folder has no frames (files not starting with '.')", path);
    if (status)
        return free_paths(v, k), status;
    qsort(v, k, sizeof *v, by_name);
    *out = v;
    *count = k;
    return 0;
}

static int fail(int code, const char *msg)
{
    fprintf(stderr, "%s: %s\n", io.program, msg);
    return code;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", io.program);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try --help)\n");
    return 2;
}

/* The names of the ports of one direction, for messages. */
static const char *port_names(int output)
{
    static char buf[512];
    buf[0] = 0;
    for (int i = 0; i < io.n_ports; i++)
        if (io.ports[i].output == output) {
            size_t used = strlen(buf);
            snprintf(buf + used, sizeof buf - used, "%s`%s`", used ? ", " : "", io.ports[i].name);
        }
    return buf[0] ? buf : "none";
}

void ssc_image_usage(FILE *f, const ssc_image_port *ports, int n_ports)
{
    for (int output = 0; output < 2; output++) {
        int any = 0;
        for (int i = 0; i < n_ports; i++)
            any |= ports[i].output == output;
        if (!output)
            fprintf(f, any ? "inputs (--input NAME=PATH; the sources' frames, without --input a test pattern):\n"
                           : "inputs: none (no source bound to func_source)\n");
        else
            fprintf(f, any ? "outputs (--output DIR writes NAME_NNNN.EXT; without it, the checksum only):\n"
                           : "outputs: none (no sink bound to func_sink)\n");
        for (int i = 0; i < n_ports; i++) {
            const ssc_image_port *p = &ports[i];
            if (p->output != output)
                continue;
            char size[64];
            snprintf(size, sizeof size, "%lld x %lld", (long long)p->width, (long long)p->height);
            const char *formats = output ? ssc_image_extension(p->type)
                                 : p->type == SSC_FLOAT || p->type == SSC_DOUBLE ? "pfm, pgm or raw"
                                 : "pgm or raw";
            fprintf(f, "  %-16s %-6s %-13s (%s)\n", p->name, type_name(p->type), size, formats);
        }
    }
}

/* which port each --input names (port_of) and its path (files): NAME=PATH,
 * or a bare PATH when the program has one input; 0 or the usage error */
static int match_inputs(const ssc_options *o, const ssc_image_port *ports, int n_ports, int n_in, int *port_of,
                        const char **files)
{
    int status = 0;
    char err[1024];
    for (int k = 0; k < o->n_inputs && !status; k++) {
        const char *arg = o->inputs[k], *eq = strchr(arg, '=');
        int found = -1;
        for (int i = 0; eq && i < n_ports; i++)
            if (!ports[i].output && strlen(ports[i].name) == (size_t)(eq - arg) &&
                !strncmp(ports[i].name, arg, (size_t)(eq - arg)))
                found = i;
        if (found >= 0) {
            files[k] = eq + 1;
        } else if (eq && eq > arg && !memchr(arg, '/', (size_t)(eq - arg)) && access(arg, F_OK) != 0) {
            snprintf(err, sizeof err, "--input %s: no input is named `%.*s`; the inputs are %s", arg,
                     (int)(eq - arg), arg, port_names(0));
            status = usage_error("%s", err);
            break;
        } else if (n_in == 1) {
            for (int i = 0; i < n_ports; i++)
                if (!ports[i].output)
                    found = i;
            files[k] = arg;
        } else {
            snprintf(err, sizeof err, "--input %s: name the input as NAME=PATH; the inputs are %s", arg,
                     port_names(0));
            status = usage_error("%s", err);
            break;
        }
        for (int j = 0; j < k; j++)
            if (port_of[j] == found) {
                snprintf(err, sizeof err, "--input: `%s` is given twice", ports[found].name);
                status = usage_error("%s", err);
            }
        port_of[k] = found;
    }
    if (!n_in && !status)
        status = usage_error("--input: this program has no inputs (sources bound to func_source)%s", "");
    return status;
}

/* --output DIR: made if missing, and a folder this program can write;
 * 0 or the error's status */
static int check_output_dir(void)
{
    int status = 0;
    char err[1024];
    struct stat st;
    if (mkdir(io.dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, sizeof err, "--output %s: cannot make the folder: %s", io.dir, strerror(errno));
        status = fail(1, err);
    } else if (stat(io.dir, &st) != 0 || !S_ISDIR(st.st_mode) || access(io.dir, W_OK) != 0) {
        snprintf(err, sizeof err, "--output %s: not a folder this program can write", io.dir);
        status = fail(1, err);
    }
    return status;
}

int ssc_images_load(ssc_options *o, const ssc_image_port *ports, int n_ports)
{
    io.ports = ports;
    io.n_ports = n_ports;
    io.program = o->program ? o->program : "ssc-program";
    io.dir = o->output_dir;
    if (!o->n_inputs) {
        if (o->output_dir)
            return usage_error("--output needs --input: the frames to run through the chain%s", "");
        return 0;
    }
    int n_in = 0, n_out = 0;
    for (int i = 0; i < n_ports; i++)
        ports[i].output ? n_out++ : n_in++;
    /* which port each --input names */
    int *port_of = calloc((size_t)o->n_inputs, sizeof *port_of);
    char ***paths = calloc((size_t)o->n_inputs, sizeof *paths);
    uint64_t *counts = calloc((size_t)o->n_inputs, sizeof *counts);
    int *folder = calloc((size_t)o->n_inputs, sizeof *folder);
    if (!port_of || !paths || !counts || !folder)
        return free(port_of), free(paths), free(counts), free(folder), fail(3, "out of memory");
    char err[1024];
    const char **files = malloc(sizeof *files * (size_t)o->n_inputs);
    if (!files)
        return free(port_of), free(paths), free(counts), free(folder), fail(3, "out of memory");
    int status = match_inputs(o, ports, n_ports, n_in, port_of, files);
    /* a folder gives one frame a file; a single file is every frame's (a
     * dark frame, a gain map); the folders must agree */
    int first_folder = -1;
    for (int k = 0; k < o->n_inputs && !status; k++) {
        err[0] = 0;
        int r = frame_paths(files[k], &paths[k], &counts[k], &folder[k], err, sizeof err);
        if (r) {
            status = fail(r, err);
        } else if (folder[k] && first_folder < 0) {
            first_folder = k;
        } else if (folder[k] && counts[k] != counts[first_folder]) {
            int f = first_folder;
            snprintf(err, sizeof err, "--input `%s` gives %llu frame%s, `%s` gives %llu: every folder needs "
                     "the same number", ports[port_of[k]].name, (unsigned long long)counts[k],
                     counts[k] == 1 ? "" : "s", ports[port_of[f]].name, (unsigned long long)counts[f]);
            status = fail(1, err);
        }
    }
    if (!status && io.dir)
        status = check_output_dir();
    uint64_t frames = status ? 0 : first_folder >= 0 ? counts[first_folder] : 1;
    io.n_ext = o->n_inputs + (io.dir ? n_out : 0);
    io.ext = status ? NULL : calloc((size_t)io.n_ext, sizeof *io.ext);
    io.slots = status ? NULL : calloc((size_t)(frames * (uint64_t)io.n_ext), sizeof *io.slots);
    if (!status && (!io.ext || !io.slots))
        status = fail(3, "out of memory");
    /* the frames, read before the run: slot s of external e at slots[s * n_ext + e] */
    for (int k = 0; k < o->n_inputs && !status; k++) {
        const ssc_image_port *p = &ports[port_of[k]];
        io.ext[k] = (ssc_external){ p->function_id, 0 };
        size_t bytes = (size_t)p->width * (size_t)p->height * ssc_type_size(p->type);
        void *data = NULL;
        for (uint64_t s = 0; s < frames && !status; s++) {
            if (folder[k] || !data) {
                if (!(data = malloc(bytes ? bytes : 1))) {
                    status = fail(3, "out of memory holding the input frames (they are read before the run)");
                    break;
                }
                int r = ssc_image_read(paths[k][folder[k] ? s : 0], p, data, err, sizeof err);
                if (r)
                    status = fail(r, err);
            }
            io.slots[s * (uint64_t)io.n_ext + (uint64_t)k] = (ssc_frame){ data, p->width * (int64_t)ssc_type_size(p->type) };
        }
    }
    for (int i = 0, e = o->n_inputs; io.dir && i < n_ports && !status; i++) {
        if (!ports[i].output)
            continue;
        io.ext[e] = (ssc_external){ ports[i].function_id, 1 };
        size_t row = (size_t)ports[i].width * ssc_type_size(ports[i].type);
        for (uint64_t s = 0; s < frames && !status; s++) {
            void *data = calloc((size_t)ports[i].height, row ? row : 1);
            if (!data)
                status = fail(3, "out of memory for the output frames");
            io.slots[s * (uint64_t)io.n_ext + (uint64_t)e] = (ssc_frame){ data, (int64_t)row };
        }
        e++;
    }
    for (int k = 0; k < o->n_inputs; k++)
        free_paths(paths[k], counts[k]);
    free(paths), free(counts), free(port_of), free(files), free(folder);
    if (status)
        return status;
    io.frames = frames;
    if (!o->iterations_given && !o->forever)
        o->iterations = frames;
    /* an output slot is reused by iteration i + frames: keep it from
     * running while iteration i still writes there (with --forever too:
     * after the stop each frame's file holds its last iteration's outputs) */
    if (io.dir && o->iterations > frames && (!o->max_lead || o->max_lead > frames))
        o->max_lead = (uint32_t)(frames < 1000000000 ? frames : 1000000000);
    ssc_program_externals(io.ext, io.n_ext, io.slots, frames);
    return 0;
}

int ssc_images_save(void)
{
    if (!io.dir || !io.frames)
        return 0;
    uint64_t done = ssc_iterations_completed();
    uint64_t frames = done < io.frames ? done : io.frames;
    int digits = 4;
    for (uint64_t f = io.frames - 1; f >= 10000; f /= 10)
        digits++;
    char err[1024];
    for (int e = 0; e < io.n_ext; e++) {
        if (!io.ext[e].output)
            continue;
        const ssc_image_port *p = NULL;
        for (int i = 0; i < io.n_ports; i++)
            if (io.ports[i].output && io.ports[i].function_id == io.ext[e].function_id)
                p = &io.ports[i];
        for (uint64_t s = 0; p && s < frames; s++) {
            char *path;
            if (asprintf(&path, "%s/%s_%0*llu.%s", io.dir, p->name, digits, (unsigned long long)s,
                         ssc_image_extension(p->type)) < 0)
                return fail(3, "out of memory");
            int r = ssc_image_write(path, p, io.slots[s * (uint64_t)io.n_ext + (uint64_t)e].data, err, sizeof err);
            free(path);
            if (r)
                return fail(r, err);
        }
    }
    return 0;
}
