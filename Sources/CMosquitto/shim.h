// libmosquitto: the MQTT client the dock and the reader node talk to the broker through.
#include <mosquitto.h>
