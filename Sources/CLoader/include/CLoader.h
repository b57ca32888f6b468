#ifndef DATEBOOK_CLOADER_H
#define DATEBOOK_CLOADER_H

/* The C libraries datebook opens on first use instead of linking them (libraries.h), and the
   calls Swift makes into each: libcurl (datebook_curl.h), libpq (datebook_pq.h), libmicrohttpd
   (datebook_microhttpd.h) and libxml2's streaming reader (datebook_xml.h). */
#include "datebook_libraries.h"
#include "datebook_curl.h"
#include "datebook_pq.h"
#include "datebook_microhttpd.h"
#include "datebook_xml.h"

#endif
