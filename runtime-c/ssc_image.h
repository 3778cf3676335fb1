/* ssc_image.h — image files for a program's external ports (--input,
 * --output; runtime-c/README.md, "Image files").
 *
 * Formats: binary PGM (P5; 8 bit up to maxval 255, 16 bit big-endian up to
 * 65535), greyscale PFM (Pf; 32-bit float, either byte order, bottom row
 * first) and raw (files named .raw or .bin: exactly width x height elements
 * of the port's type, native byte order, top row first). A file's values go
 * into the port's type only when every value fits exactly; anything else is
 * an error naming the file and what is wrong, never a silently wrong image.
 */
#ifndef SSC_IMAGE_H
#define SSC_IMAGE_H

#include "ssc_rt.h"

/* An external port of a program: a source bound to func_source (input) or
 * a sink bound to func_sink (output), named after its function instance. */
typedef struct {
    const char *name;
    uint32_t function_id;
    int output;
    ssc_type type;
    int64_t width, height;
} ssc_image_port;

/* Reads the frame of port p from `path` into `out` (width x height elements
 * of p->type, rows packed). 0, or 1 with a message naming the file in err. */
int ssc_image_read(const char *path, const ssc_image_port *p, void *out, char *err, size_t n);

/* Writes one frame of port p (rows packed) to `path`: PGM for uchar and
 * ushort, PFM for float, raw for the other types. 0, or 3 with a message. */
int ssc_image_write(const char *path, const ssc_image_port *p, const void *data, char *err, size_t n);

/* The file extension ssc_image_write uses for a type: "pgm", "pfm", "raw". */
const char *ssc_image_extension(ssc_type t);

/* --help's table of the ports: the inputs (--input NAME=PATH) and the
 * outputs (--output DIR, one file per frame), each with its type, size and
 * the file formats it takes or gives. */
void ssc_image_usage(FILE *f, const ssc_image_port *ports, int n_ports);

/* A program's --input and --output (options o, parsed): reads every input
 * frame before the run (a folder gives its files in name order, and
 * every folder must give the same number; a single file is every frame's:
 * a dark frame, a gain map), checks --output, and hands
 * the frames to the runtime. Without --iterations the program runs each
 * frame once; with more iterations than frames, iteration i takes frame
 * i mod frames (and, with --output, at most that many iterations are in
 * flight). 0; 1 when a file is wrong; 2 for a wrong --input or --output;
 * 3 when memory runs out. Messages name the program and the file. */
int ssc_images_load(ssc_options *o, const ssc_image_port *ports, int n_ports);

/* After the run: writes each frame's outputs to the --output folder as
 * SINK_NNNN.EXT (NNNN: the frame's index among the input frames; only the
 * frames whose iterations completed). 0, or 3 when a write fails. */
int ssc_images_save(void);

#endif /* SSC_IMAGE_H */
