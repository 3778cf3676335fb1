{#- The options main (or the library's open) sets before the command line:
    -ta, -tt, -ht, -td, -dt. Included by program.c and library_api.c. -#}
{%- if time_boxes %}
    opt.time_boxes = 1;  /* -ta */
{%- endif %}
{%- if time_threads %}
    opt.time_threads = 1;  /* -tt */
{%- endif %}
{%- if huge_pages %}
    opt.huge_pages = 1;  /* -ht */
{%- endif %}
{%- if let Some(f) = dump_format %}
    opt.dump_format = {{ f }};  /* -td */
{%- endif %}
{%- if let Some(p) = dump_path %}
    opt.dump_path = "{{ p }}";  /* -dt */
{%- endif -%}
