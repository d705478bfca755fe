/* Linux system interfaces the Swift Glibc module does not bring in. */
#ifndef HANDOFF_CLINUX_H
#define HANDOFF_CLINUX_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <poll.h>
#include <pthread.h>
#endif
