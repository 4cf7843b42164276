# The RTSP test camera of the kind run: the project's GStreamer fixture (testing/fixtures/rtsp_camera.py) on Debian.
# Build context: testing/fixtures (run.sh: docker build -f kind-test/rtsp-camera.Dockerfile testing/fixtures).
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-gi gir1.2-gst-rtsp-server-1.0 \
      gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly \
 && rm -rf /var/lib/apt/lists/*
COPY rtsp_camera.py rtsp_serve.py rtsp_looped_file.py /opt/rtsp-camera/
# Other Pods connect: listen on every address of the Pod (the fixture's default is 127.0.0.1).
ENV RTSP_BIND_ADDRESS=0.0.0.0
USER 10002:10002
ENTRYPOINT ["python3", "/opt/rtsp-camera/rtsp_camera.py"]
